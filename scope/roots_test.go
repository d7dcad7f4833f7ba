package scope

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInRoots: the one rule for "is this directory inside the owner's
// roots", shared by /cwd, /branch, the check when a session starts and the
// config's worktrees_dir. Links are followed in the roots and in the
// path, ".." must be inside both as written and as the kernel walks it, a
// root never holds a sibling whose name merely starts with it, an empty or
// relative root holds nothing, and a path with an invisible character is
// never inside.
func TestInRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	code, code2, out, home := filepath.Join(base, "code"), filepath.Join(base, "code2"), filepath.Join(base, "out"), filepath.Join(base, "home")
	api := filepath.Join(code, "api")
	for _, d := range []string{api, filepath.Join(code2, "x"), filepath.Join(out, "x"), home} {
		mkdir(t, d)
	}
	link(t, out, filepath.Join(code, "escape"))     // a link out of the root
	link(t, api, filepath.Join(base, "api-link"))   // a way into the root from outside
	link(t, code, filepath.Join(base, "code-link")) // the root named through a link
	link(t, filepath.Join(out, "gone"), filepath.Join(code, "dangling-out"))
	link(t, filepath.Join(code, "later"), filepath.Join(code, "dangling-in"))
	link(t, code, filepath.Join(home, "code"))
	t.Setenv("HOME", home)
	roots := []string{code}

	tests := []struct {
		name, path string
		roots      []string
		inside     bool
		resolved   string // "" = do not check
	}{
		{"the root itself", code, roots, true, code},
		{"below the root", api, roots, true, api},
		{"trailing slash", api + "/", roots, true, api},
		{"root with a trailing slash", api, []string{code + "/"}, true, api},
		{"root unclean", api, []string{code + "/./api/.."}, true, api},
		{"prefix sibling", filepath.Join(code2, "x"), roots, false, filepath.Join(code2, "x")},
		{"prefix sibling, root with a slash", code2, []string{code + "/"}, false, code2},
		{"prefix sibling by dot-dot", code + "/../code2/x", roots, false, filepath.Join(code2, "x")},
		{"dot-dot out", api + "/../..", roots, false, base},
		{"dot-dot staying in", api + "/../api", roots, true, api},
		{"dot-dot through a link out", code + "/escape/../api", roots, false, api},
		{"link out", filepath.Join(code, "escape", "x"), roots, false, filepath.Join(out, "x")},
		{"link in from outside", filepath.Join(base, "api-link"), roots, true, api},
		{"root through a link", api, []string{filepath.Join(base, "code-link")}, true, api},
		{"path through the root's link", filepath.Join(base, "code-link", "api"), roots, true, api},
		{"not there yet", filepath.Join(code, "new", "wt"), roots, true, filepath.Join(code, "new", "wt")},
		{"not there yet, below a link out", filepath.Join(code, "escape", "new"), roots, false, filepath.Join(out, "new")},
		{"dangling link out", filepath.Join(code, "dangling-out", "wt"), roots, false, filepath.Join(out, "gone", "wt")},
		{"dangling link in", filepath.Join(code, "dangling-in", "wt"), roots, true, filepath.Join(code, "later", "wt")},
		{"root not there yet", filepath.Join(base, "new", "x"), []string{filepath.Join(base, "new")}, true, ""},
		{"~ into the root through a link", "~/code/api", roots, true, api},
		{"~ alone", "~", roots, false, home},
		{"~user", "~root", roots, false, ""},
		{"relative", "api", roots, false, ""},
		{"empty path", "", roots, false, ""},
		{"empty root", api, []string{""}, false, ""},
		{"empty root beside a real one", filepath.Join(out, "x"), []string{"", code}, false, ""},
		{"relative root", api, []string{"code"}, false, ""},
		{"dot root", api, []string{"."}, false, ""},
		{"no roots", api, nil, false, ""},
		{"root / holds everything", filepath.Join(out, "x"), []string{"/"}, true, filepath.Join(out, "x")},
		{"spaces around", " " + api + " ", roots, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := InRoots(tc.path, tc.roots)
			if v.Inside != tc.inside || v.Invisible {
				t.Errorf("InRoots(%q, %q) = %+v, want inside %v", tc.path, tc.roots, v, tc.inside)
			}
			if tc.resolved != "" && v.Path != tc.resolved {
				t.Errorf("InRoots(%q).Path = %s, want %s", tc.path, v.Path, tc.resolved)
			}
		})
	}
	// A Rule's WorkDir is a root too: empty, it holds nothing either.
	for _, r := range []Rule{{}, {WorkDirResolved: true}, {WorkDir: "", Roots: []string{""}}} {
		for _, p := range []string{api, "/", base + "/"} {
			if v := r.Check(p); v.Inside {
				t.Errorf("%+v.Check(%q) = %+v, want not inside", r, p, v)
			}
		}
	}
}

// TestInRootsRefusesInvisible: a directory holding a character that shows
// as nothing or turns the text around is never inside, even when it exists
// under a root, and the verdict says why.
func TestInRootsRefusesInvisible(t *testing.T) {
	code, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"\ufeffapi", "api\u200b", "ap\u202ei", "a\u2066pi", "api\x01", "\u00adapi"} {
		d := filepath.Join(code, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if v := InRoots(d, []string{code}); v.Inside || !v.Invisible {
			t.Errorf("%q: %+v, want not inside (invisible)", d, v)
		}
	}
	if v := InRoots(filepath.Join(code, "naïve café"), []string{code}); !v.Inside || v.Invisible {
		t.Errorf("a name with visible non-ASCII letters: %+v", v)
	}
}
