package scope

import (
	"context"
	"io/fs"
	"path"
	"testing"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/host/hosttest"
)

// remote is a machine that is not this one: a project whose "out" is a
// link to /etc, and a home of its own. None of its paths exist here.
type remote struct {
	host.Host // nil: a call the rule should not make panics
}

type fakeInfo struct {
	name string
	mode fs.FileMode
}

func (i fakeInfo) Name() string       { return i.name }
func (i fakeInfo) Size() int64        { return 0 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

var remoteDirs = map[string]bool{"/": true, "/remote": true, "/remote/proj": true, "/etc": true,
	"/remote/home": true, "/remote/proj/objects": true}

func (remote) Lstat(_ context.Context, p string) (fs.FileInfo, error) {
	switch {
	case p == "/remote/proj/out":
		return fakeInfo{path.Base(p), fs.ModeSymlink}, nil
	case remoteDirs[p]:
		return fakeInfo{path.Base(p), fs.ModeDir}, nil
	}
	return nil, fs.ErrNotExist
}

func (r remote) Stat(ctx context.Context, p string) (fs.FileInfo, error) { return r.Lstat(ctx, p) }

func (remote) Readlink(_ context.Context, p string) (string, error) {
	if p == "/remote/proj/out" {
		return "/etc", nil
	}
	return "", fs.ErrInvalid
}

func (r remote) ResolveLinks(ctx context.Context, p string) (string, error) {
	return host.WalkLinks(ctx, r, p)
}

func (remote) Getenv(key string) string {
	if key == "HOME" {
		return "/remote/home"
	}
	return ""
}

// The rule resolves links, looks at files and expands "~" on its host,
// never on this machine.
func TestRuleUsesItsHost(t *testing.T) {
	rec := &hosttest.Recorder{Host: remote{}}
	r := Rule{Host: rec, WorkDir: "/remote/proj", Roots: []string{"/remote/home"}}

	// Here, /remote/proj/out/passwd does not exist and would be placed by
	// its (missing) parents, inside; on the host, out leads to /etc.
	if v := (Rule{WorkDir: "/remote/proj"}).Check("/remote/proj/out/passwd"); !v.Inside {
		t.Fatalf("on this machine: %+v, want inside (nothing there to follow)", v)
	}
	if v := r.Check("out/passwd"); v.Inside || v.Path != "/etc/passwd" {
		t.Errorf("on the host: %+v, want /etc/passwd outside", v)
	}
	if !rec.Called("ResolveLinks /remote/proj/out/passwd") {
		t.Errorf("the host was not asked to resolve the path: %v", rec.Calls())
	}
	if v := r.Check("~/notes.md"); !v.Inside || v.Path != "/remote/home/notes.md" {
		t.Errorf("~ on the host: %+v, want /remote/home/notes.md inside", v)
	}
	// A write beside the host's objects/ folder completes a planted bare
	// repository there (HEAD + objects): not inside.
	if v := r.CheckWrite("HEAD"); v.Inside || !v.Sensitive {
		t.Errorf("CheckWrite(HEAD) beside objects/ on the host: %+v, want sensitive", v)
	}
	for _, call := range []string{"Stat /remote/proj/objects", "Getenv HOME"} {
		if !rec.Called(call) {
			t.Errorf("no %q among the host's calls: %v", call, rec.Calls())
		}
	}
}

// keeper is remote keeping folders of the bot's (host.Keeper), or unable
// to tell them.
type keeper struct {
	remote
	dirs []string
	err  error
}

func (k keeper) PrivateDirs(context.Context) ([]string, error) { return k.dirs, k.err }

// What a host keeps for the bot is forbidden on it whoever builds the
// rule, under the working directory and for InRoots' rule alike, and a
// root deeper inside stays a root (the chat's uploads); a host that cannot
// tell its folders has nothing inside.
func TestRuleForbidsWhatTheHostKeeps(t *testing.T) {
	kept := keeper{dirs: []string{"/remote/home/.cache/untether"}}
	r := Rule{Host: kept, WorkDir: "/remote/home", Roots: []string{"/remote/home/.cache/untether/uploads/42"}}
	for _, p := range []string{"~/.cache/untether/hold/abc/journal", "/remote/home/.cache/untether/mcp-1.json", "~/.cache/untether"} {
		if v := r.Check(p); v.Inside || !v.Forbidden {
			t.Errorf("%s: %+v, want forbidden", p, v)
		}
	}
	for _, p := range []string{"~/notes.md", "~/.cache/untether/uploads/42/photo.jpg"} {
		if v := r.Check(p); !v.Inside {
			t.Errorf("%s: %+v, want inside", p, v)
		}
	}
	if v := (Rule{Host: kept, Roots: []string{"/remote/home"}}).Check("/remote/home/.cache/untether/hold"); v.Inside {
		t.Errorf("a roots-only rule holds the kept folder: %+v", v)
	}
	if v := (Rule{Host: keeper{err: host.ErrUnreachable}, WorkDir: "/remote/home"}).Check("~/notes.md"); v.Inside {
		t.Errorf("a host that cannot tell what it keeps: %+v, want not inside", v)
	}
}
