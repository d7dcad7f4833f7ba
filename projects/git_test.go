package projects

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newRepo makes a git repository with one commit (a.txt with three lines,
// bin.dat binary) and returns its folder, links resolved.
func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	writeFile(t, filepath.Join(dir, "bin.dat"), "\x00\x01\x02")
	writeFile(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	gitT(t, dir, "init", "-q", "-b", "main")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "first")
	return dir
}

// gitT runs git as the owner would (this is the test's own git, not the
// code under test).
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func TestSnapshotCompareTurn(t *testing.T) {
	dir, g, ctx := newRepo(t), Git{}, context.Background()
	// Uncommitted work from before the turn must not count as the turn's.
	writeFile(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\nfour\n")
	before, err := g.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	indexBefore := gitT(t, dir, "status", "--porcelain")
	// The turn: edit a tracked file, add one, delete one, change a binary,
	// write an ignored log.
	writeFile(t, filepath.Join(dir, "a.txt"), "one\nTWO\nthree\nfour\nfive\n")
	writeFile(t, filepath.Join(dir, "new.go"), "package x\n\nfunc X() {}\n")
	writeFile(t, filepath.Join(dir, "bin.dat"), "\x00\x09")
	writeFile(t, filepath.Join(dir, "debug.log"), "ignored\n")
	after, err := g.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := g.Compare(ctx, dir, before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FileChange{}
	for _, f := range files {
		got[f.Path] = f
	}
	if len(files) != 3 || got["a.txt"] != (FileChange{"M", "a.txt", 2, 1}) || got["new.go"] != (FileChange{"A", "new.go", 3, 0}) ||
		!got["bin.dat"].Binary() {
		t.Fatalf("changes = %+v", files)
	}
	if s := Sum(files); s != (Stat{Files: 3, Added: 5, Removed: 1}) {
		t.Errorf("Sum = %+v", s)
	}
	// The owner's index and status are as they were: nothing was staged.
	if now := gitT(t, dir, "status", "--porcelain"); !strings.Contains(now, "?? new.go") || strings.Contains(now, "A  new.go") {
		t.Errorf("status after snapshots:\n%s\n(before:\n%s)", now, indexBefore)
	}
	if again, _ := g.Compare(ctx, dir, after, after); len(again) != 0 {
		t.Errorf("same tree compared: %+v", again)
	}
}

func TestUncommittedAndOneFile(t *testing.T) {
	dir, g, ctx := newRepo(t), Git{}, context.Background()
	writeFile(t, filepath.Join(dir, "a.txt"), "one\nthree\n")
	writeFile(t, filepath.Join(dir, "sub", "b.txt"), "hello\n")
	files, patch, cut, err := g.Uncommitted(ctx, dir)
	if err != nil || cut {
		t.Fatal(err, cut)
	}
	if len(files) != 2 || !strings.Contains(patch, "-two") || !strings.Contains(patch, "+hello") || !strings.Contains(patch, "diff --git a/sub/b.txt b/sub/b.txt") {
		t.Fatalf("files %+v patch:\n%s", files, patch)
	}
	files, patch, _, err = g.Uncommitted(ctx, dir, "sub/b.txt")
	if err != nil || len(files) != 1 || strings.Contains(patch, "a.txt") {
		t.Fatalf("one file: %+v %v\n%s", files, err, patch)
	}
	// From a subdirectory only its part is seen, paths relative to it.
	files, _, _, err = g.Uncommitted(ctx, filepath.Join(dir, "sub"))
	if err != nil || len(files) != 1 || files[0].Path != "b.txt" {
		t.Fatalf("from sub: %+v %v", files, err)
	}
	// Pathspec magic is a file name like any other.
	if files, _, _, err = g.Uncommitted(ctx, dir, ":(top)a.txt"); err != nil || len(files) != 0 {
		t.Errorf("pathspec magic was honoured: %+v %v", files, err)
	}
}

func TestNoCommitsYetAndNotARepo(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	g, ctx := Git{}, context.Background()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "f.txt"), "x\n")
	files, _, _, err := g.Uncommitted(ctx, dir)
	if err != nil || len(files) != 1 || files[0].Status != "A" {
		t.Fatalf("fresh repository: %+v %v", files, err)
	}
	plain := t.TempDir()
	if _, err := g.Root(ctx, plain); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Root of a plain folder: %v", err)
	}
	if _, err := g.Snapshot(ctx, plain); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Snapshot of a plain folder: %v", err)
	}
}

// Hooks the repository defines never run when the bot reads it.
func TestRepositoryHooksDoNotRun(t *testing.T) {
	dir, g, ctx := newRepo(t), Git{}, context.Background()
	marker := filepath.Join(t.TempDir(), "ran")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	for _, name := range []string{"post-checkout", "post-index-change", "reference-transaction"} {
		writeFile(t, filepath.Join(dir, ".git", "hooks", name), hook)
		if err := os.Chmod(filepath.Join(dir, ".git", "hooks", name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitT(t, dir, "config", "core.fsmonitor", filepath.Join(dir, ".git", "hooks", "post-checkout"))
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
	if _, _, _, err := g.Uncommitted(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddWorktree(ctx, dir, filepath.Join(filepath.Dir(dir), "wt"), "feature"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a hook of the repository ran")
	}
}

func TestGitTimeLimit(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// A "git" that never answers: the limit ends it.
	fake := filepath.Join(t.TempDir(), "git")
	writeFile(t, fake, "#!/bin/sh\nsleep 30\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	g := Git{Binary: fake, Timeout: 100 * time.Millisecond}
	start := time.Now()
	_, err := g.Root(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestWorktrees(t *testing.T) {
	dir, g, ctx := newRepo(t), Git{}, context.Background()
	path := WorktreePath("", dir, "feature/login")
	if want := filepath.Join(filepath.Dir(dir), "repo.worktrees", "feature-login"); path != want {
		t.Fatalf("WorktreePath = %q, want %q", path, want)
	}
	if p := WorktreePath("/w", dir, "x"); p != "/w/repo/x" {
		t.Errorf("with worktrees_dir: %q", p)
	}
	created, err := g.AddWorktree(ctx, dir, path, "feature/login")
	if err != nil || !created {
		t.Fatalf("AddWorktree: %v %v", created, err)
	}
	if _, err := os.Stat(filepath.Join(path, "a.txt")); err != nil {
		t.Errorf("worktree has no files: %v", err)
	}
	gitT(t, dir, "branch", "existing")
	other := WorktreePath("", dir, "existing")
	if created, err := g.AddWorktree(ctx, dir, other, "existing"); err != nil || created {
		t.Fatalf("existing branch: %v %v", created, err)
	}
	list, err := g.Worktrees(ctx, path) // from inside a worktree too
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || !list[0].Main || list[0].Path != dir || list[0].Branch != "main" {
		t.Fatalf("Worktrees = %+v", list)
	}
	if w, ok := FindBranch(list, "feature/login"); !ok || w.Path != path {
		t.Errorf("FindBranch = %+v %v", w, ok)
	}
	for _, bad := range []string{"-x", "a b", "a..b", ""} {
		if err := g.CheckBranch(ctx, dir, bad); !errors.Is(err, ErrBadBranch) {
			t.Errorf("CheckBranch(%q) = %v", bad, err)
		}
	}
}
