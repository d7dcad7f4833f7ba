package projects

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A filter defined only for the new worktree: an includeIf "onbranch:"
// whose branch is the one /branch checks out. filterOverrides asks git in
// the chat's directory (on main), where the include does not apply, so the
// driver is not switched off; the checkout of the new worktree (git
// worktree add runs `git reset --hard` in it, on the new branch) reads the
// include and runs the smudge filter.
func TestWorktreeOnlyIncludeRunsNoFilter(t *testing.T) {
	dir, g, ctx, progs := newRepo(t), Git{}, context.Background(), newPrograms(t)
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=x\n")
	gitT(t, dir, "add", ".gitattributes")
	gitT(t, dir, "commit", "-q", "-m", "attrs")
	writeFile(t, filepath.Join(dir, "planted.cfg"), "[filter \"x\"]\n\tsmudge = "+progs.script("smudge")+"\n\tclean = "+progs.script("clean")+"\n")
	gitT(t, dir, "config", "includeIf.onbranch:feature/**.path", "../planted.cfg")
	if _, err := g.AddWorktree(ctx, dir, filepath.Join(filepath.Dir(dir), "wt"), "feature/x"); err != nil {
		t.Fatal(err)
	}
	if r := progs.ran(); len(r) > 0 {
		t.Fatalf("a filter the new worktree's config names ran: %v", r)
	}
}

// Same through includeIf "gitdir:": the new worktree's git directory is
// .git/worktrees/<name>, the chat's is .git.
func TestWorktreeOnlyGitdirIncludeRunsNoFilter(t *testing.T) {
	dir, g, ctx, progs := newRepo(t), Git{}, context.Background(), newPrograms(t)
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.txt filter=x\n")
	gitT(t, dir, "add", ".gitattributes")
	gitT(t, dir, "commit", "-q", "-m", "attrs")
	writeFile(t, filepath.Join(dir, "planted.cfg"), "[filter \"x\"]\n\tsmudge = "+progs.script("smudge")+"\n")
	gitT(t, dir, "config", "includeIf.gitdir:**/.git/worktrees/**.path", "../planted.cfg")
	if _, err := g.AddWorktree(ctx, dir, filepath.Join(filepath.Dir(dir), "wt"), "feature"); err != nil {
		t.Fatal(err)
	}
	if r := progs.ran(); len(r) > 0 {
		t.Fatalf("a filter the new worktree's config names ran: %v", r)
	}
}

// A FIFO in place of a .gitignore (or .gitattributes) anywhere in the
// project: git opens it to read its patterns and waits for a writer, so
// the snapshot every turn takes at its start (and end) waits for git's
// whole time limit.
func TestSnapshotFIFOIgnoreFileDoesNotStall(t *testing.T) {
	for _, name := range []string{".gitignore", ".gitattributes"} {
		t.Run(name, func(t *testing.T) {
			dir, g, ctx := newRepo(t), Git{Timeout: time.Second}, context.Background()
			writeFile(t, filepath.Join(dir, "sub", "x.txt"), "x\n")
			if err := syscall.Mkfifo(filepath.Join(dir, "sub", name), 0o644); err != nil {
				t.Fatal(err)
			}
			// Git itself waits on the FIFO: the bot cannot stop that, but
			// the command ends at its limit and says so, and SlowDirs then
			// keeps every turn from paying the limit again.
			_, err := g.Snapshot(ctx, dir)
			if !TimedOut(err) {
				t.Fatalf("Snapshot with a FIFO %s: err = %v, want a time-out", name, err)
			}
			var slow SlowDirs
			if slow.Skip(dir) || !slow.Note(dir, err) || !slow.Skip(dir) {
				t.Fatal("a directory where git timed out is not skipped")
			}
		})
	}
}

// A partial clone whose promisor remote is an ext:: URL, with the
// repository's config allowing that transport by name
// (protocol.ext.allow=always): a per-protocol setting wins over the
// bot's "-c protocol.allow=never", so only GIT_NO_LAZY_FETCH keeps git
// from running the URL's command when a diff needs a missing blob. Git
// before 2.39.4 / 2.40.2 … 2.44.1 ignores that variable (Apple's git
// 2.39.3 of Xcode 15 among them); the wrapper below stands for such a git.
func TestPromisorExtTransportRunsNoProgram(t *testing.T) {
	dir, ctx, progs := newRepo(t), context.Background(), newPrograms(t)
	blob := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD:a.txt"))
	if err := os.Remove(filepath.Join(dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{
		{"core.repositoryformatversion", "1"},
		{"extensions.partialClone", "origin"},
		{"remote.origin.promisor", "true"},
		{"remote.origin.url", "ext::" + progs.script("ext")},
		{"protocol.ext.allow", "always"},
	} {
		gitT(t, dir, "config", kv[0], kv[1])
	}
	old := filepath.Join(progs.dir, "oldgit")
	writeFile(t, old, "#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nexec git \"$@\"\n")
	if err := os.Chmod(old, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
	for _, g := range []Git{{Timeout: 3 * time.Second}, {Binary: old, Timeout: 3 * time.Second}} {
		_, _, _, _ = g.Uncommitted(ctx, dir)
		if r := progs.ran(); len(r) > 0 {
			t.Fatalf("git %q ran the promisor remote's ext:: command: %v", g.Binary, r)
		}
	}
}

// AddWorktree checks the branch out as git worktree add does: the files
// are there and the new worktree has nothing uncommitted.
func TestAddWorktreeChecksOutClean(t *testing.T) {
	dir, g, ctx := newRepo(t), Git{}, context.Background()
	for _, branch := range []string{"fresh", "main2"} {
		if branch == "main2" {
			gitT(t, dir, "branch", "main2")
		}
		wt := filepath.Join(filepath.Dir(dir), "wt-"+branch)
		if _, err := g.AddWorktree(ctx, dir, wt, branch); err != nil {
			t.Fatal(err)
		}
		if st := gitT(t, wt, "status", "--porcelain"); st != "" {
			t.Errorf("%s: the new worktree is not clean: %q", branch, st)
		}
		if got := strings.TrimSpace(gitT(t, wt, "rev-parse", "--abbrev-ref", "HEAD")); got != branch {
			t.Errorf("the new worktree is on %q, want %q", got, branch)
		}
	}
}
