package projects

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// programs writes a shell script that, when run, leaves a marker file named
// after what ran it, passes its input through (as a filter would) and
// returns its path; ran lists the markers that exist.
type programs struct {
	t   *testing.T
	dir string
}

func newPrograms(t *testing.T) programs {
	return programs{t: t, dir: t.TempDir()}
}

// script is a program that, run by git as a filter, textconv, driver,
// pager, helper or hook, leaves its marker and copies stdin to stdout.
func (p programs) script(name string) string {
	p.t.Helper()
	path := filepath.Join(p.dir, name+".sh")
	writeFile(p.t, path, "#!/bin/sh\ntouch '"+filepath.Join(p.dir, name+".ran")+"'\nexec cat\n")
	if err := os.Chmod(path, 0o755); err != nil {
		p.t.Fatal(err)
	}
	return path
}

func (p programs) ran() []string {
	p.t.Helper()
	m, err := filepath.Glob(filepath.Join(p.dir, "*.ran"))
	if err != nil {
		p.t.Fatal(err)
	}
	return m
}

// A folder that holds HEAD, config, objects/, refs/ and info/attributes is
// a bare repository to git, though nothing in it is named .git: a
// download, an archive or Claude's listed writes can make one in the
// chat's directory. Its config names a clean filter that the snapshot's
// `git add` would run (it did before safe.bareRepository=explicit). The
// bot must take the folder for no repository at all.
func TestBareLookingFolderIsNoRepository(t *testing.T) {
	g, ctx, progs := Git{}, context.Background(), newPrograms(t)
	dir := filepath.Join(t.TempDir(), "downloads")
	writeFile(t, filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(dir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n"+
		"[filter \"x\"]\n\tclean = "+progs.script("clean")+"\n\tsmudge = "+progs.script("smudge")+"\n")
	writeFile(t, filepath.Join(dir, "objects", "info", "packs"), "")
	writeFile(t, filepath.Join(dir, "refs", "heads", ".keep"), "")
	writeFile(t, filepath.Join(dir, "info", "attributes"), "* filter=x\n")
	writeFile(t, filepath.Join(dir, "notes.txt"), "hello\n")

	if _, err := g.Snapshot(ctx, dir); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Snapshot of a bare-looking folder: err = %v, want ErrNotRepo", err)
	}
	if _, err := g.Root(ctx, dir); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Root of a bare-looking folder: err = %v, want ErrNotRepo", err)
	}
	if _, _, _, err := g.Uncommitted(ctx, dir); !errors.Is(err, ErrNotRepo) {
		t.Errorf("Uncommitted of a bare-looking folder: err = %v, want ErrNotRepo", err)
	}
	if r := progs.ran(); len(r) > 0 {
		t.Fatalf("programs named by the folder's config ran: %v", r)
	}
}

// A real repository whose config (its own, an included file, or a
// worktree's) names programs: filters (clean, smudge, long-running
// process, a driver whose name holds "="), textconv, an external diff, a
// pager, hooks through core.hooksPath, fsmonitor, ssh and credential
// helpers, a gpg program. No git command the bot runs may start any.
func TestRepositoryConfigRunsNoProgram(t *testing.T) {
	dir, g, ctx, progs := newRepo(t), Git{}, context.Background(), newPrograms(t)
	hooks := filepath.Join(progs.dir, "hooks")
	for _, h := range []string{"post-checkout", "pre-commit", "post-index-change", "reference-transaction", "pre-auto-gc"} {
		writeFile(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch '"+filepath.Join(progs.dir, "hook-"+h+".ran")+"'\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	planted := filepath.Join(dir, "planted.cfg") // a file Claude could write, included by the repository's config
	writeFile(t, planted, "[filter \"a=b\"]\n\tclean = "+progs.script("included-clean")+"\n"+
		"[filter \"proc\"]\n\tprocess = "+progs.script("process")+"\n\trequired = true\n")
	for _, kv := range [][2]string{
		{"filter.x.clean", progs.script("clean")},
		{"filter.x.smudge", progs.script("smudge")},
		{"filter.x.required", "true"},
		{"diff.tc.textconv", progs.script("textconv")},
		{"diff.ext.command", progs.script("diffcmd")},
		{"diff.external", progs.script("external")},
		{"core.pager", progs.script("pager")},
		{"pager.diff", progs.script("pagerdiff")},
		{"core.hooksPath", hooks},
		{"core.fsmonitor", progs.script("fsmonitor")},
		{"core.sshCommand", progs.script("ssh")},
		{"credential.helper", "!" + progs.script("credential")},
		{"gpg.program", progs.script("gpg")},
		{"commit.gpgSign", "true"},
		{"log.showSignature", "true"},
		{"gc.auto", "1"},
		{"include.path", planted},
	} {
		gitT(t, dir, "config", kv[0], kv[1])
	}
	writeFile(t, filepath.Join(dir, ".git", "info", "attributes"), "*.txt filter=x diff=tc\n*.dat diff=ext\n*.go filter=a=b\n*.md filter=proc\n")
	writeFile(t, filepath.Join(dir, "a.txt"), "changed\n")
	writeFile(t, filepath.Join(dir, "new.go"), "package x\n")
	writeFile(t, filepath.Join(dir, "doc.md"), "# doc\n")
	writeFile(t, filepath.Join(dir, "bin.dat"), "\x00\x07")

	before, err := g.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a.txt"), "changed again\n")
	after, err := g.Snapshot(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Compare(ctx, dir, before, after); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := g.Uncommitted(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Worktrees(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := g.AddWorktree(ctx, dir, filepath.Join(filepath.Dir(dir), "wt"), "feature"); err != nil {
		t.Fatal(err)
	}
	if r := progs.ran(); len(r) > 0 {
		var names []string
		for _, m := range r {
			names = append(names, strings.TrimSuffix(filepath.Base(m), ".ran"))
		}
		t.Fatalf("programs named by the repository's config ran: %v", names)
	}
}

// A filter the owner set up in their own global config (git-lfs installs
// itself so) still runs: that file is the owner's, and writing it is always
// asked. The same driver with one key from the repository's config is
// switched off.
func TestOwnersGlobalFilterStillRuns(t *testing.T) {
	dir, ctx, progs := newRepo(t), context.Background(), newPrograms(t)
	global := filepath.Join(t.TempDir(), "gitconfig")
	writeFile(t, global, "[filter \"lfs\"]\n\tclean = "+progs.script("owners")+"\n")
	g := Git{Env: append(os.Environ(), "GIT_CONFIG_GLOBAL="+global)}
	writeFile(t, filepath.Join(dir, ".gitattributes"), "*.bin filter=lfs\n")
	writeFile(t, filepath.Join(dir, "big.bin"), "data\n")
	if _, err := g.Snapshot(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if r := progs.ran(); len(r) != 1 || !strings.HasSuffix(r[0], "owners.ran") {
		t.Fatalf("the owner's global filter should run once set up; ran: %v", r)
	}
	os.Remove(r0(progs))
	gitT(t, dir, "config", "filter.lfs.required", "false")
	writeFile(t, filepath.Join(dir, "big.bin"), "more data\n")
	if _, err := g.Snapshot(ctx, dir); err != nil {
		t.Fatal(err)
	}
	if r := progs.ran(); len(r) > 0 {
		t.Fatalf("a driver the repository's config touches must not run; ran: %v", r)
	}
}

func r0(p programs) string { return p.ran()[0] }
