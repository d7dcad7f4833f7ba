package scope

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// world is a temp tree with a project, a sibling with a prefix name, an
// uploads root with two chats' folders, the bot's own files and a secret.
type world struct {
	base, proj, proj2, uploads, mine, theirs, secret, state, config, home string
	rule                                                                  Rule
}

func newWorld(t *testing.T) world {
	t.Helper()
	// EvalSymlinks: the temp dir itself may sit behind a link (macOS /var).
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{
		base:    base,
		proj:    filepath.Join(base, "work", "proj"),
		proj2:   filepath.Join(base, "work", "proj2"),
		uploads: filepath.Join(base, "uploads"),
		home:    filepath.Join(base, "home"),
	}
	w.mine = filepath.Join(w.uploads, "100")
	w.theirs = filepath.Join(w.uploads, "200")
	w.secret = filepath.Join(w.home, ".ssh", "id_ed25519")
	w.state = filepath.Join(w.proj, ".untether", "untether.db") // the state file inside the work dir
	w.config = filepath.Join(w.home, ".untether", "untether.toml")
	for _, d := range []string{w.proj, w.proj2, w.mine, w.theirs, filepath.Dir(w.secret), filepath.Dir(w.state), filepath.Dir(w.config)} {
		mkdir(t, d)
	}
	for _, f := range []string{w.secret, w.state, w.config, filepath.Join(w.proj, "main.go"), filepath.Join(w.proj2, "x"),
		filepath.Join(w.mine, "photo.jpg"), filepath.Join(w.theirs, "photo.jpg")} {
		write(t, f)
	}
	w.rule = Rule{WorkDir: w.proj, Roots: []string{w.mine}, Forbidden: []string{w.state, w.config, w.uploads}}
	t.Setenv("HOME", w.home)
	return w
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, f string) {
	t.Helper()
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func TestCheck(t *testing.T) {
	w := newWorld(t)
	link(t, w.secret, filepath.Join(w.proj, "key"))                      // a link out of the project
	link(t, filepath.Join(w.home, ".ssh"), filepath.Join(w.proj, "ssh")) // a folder link out
	link(t, "../proj2", filepath.Join(w.proj, "sib"))                    // relative link to the prefix sibling
	link(t, "main.go", filepath.Join(w.proj, "alias.go"))                // a link that stays inside
	link(t, w.state, filepath.Join(w.proj, "db"))                        // a link to the forbidden state file
	link(t, filepath.Join(w.home, "nowhere"), filepath.Join(w.proj, "dangling"))
	link(t, "loop2", filepath.Join(w.proj, "loop1"))
	link(t, "loop1", filepath.Join(w.proj, "loop2"))
	link(t, w.proj, filepath.Join(w.home, "proj-link")) // a way into the project from outside
	link(t, w.theirs, filepath.Join(w.mine, "peek"))    // a link from my uploads to theirs

	tests := []struct {
		name, path string
		inside     bool
		resolved   string // "" = do not check
		forbidden  bool
	}{
		{"file in the project", filepath.Join(w.proj, "main.go"), true, filepath.Join(w.proj, "main.go"), false},
		{"the project itself", w.proj, true, w.proj, false},
		{"relative", "main.go", true, filepath.Join(w.proj, "main.go"), false},
		{"relative dot", "./src/../main.go", true, filepath.Join(w.proj, "main.go"), false},
		{"relative empty folder", ".", true, w.proj, false},
		{"nonexistent file inside", filepath.Join(w.proj, "new", "deep", "f.go"), true, filepath.Join(w.proj, "new", "deep", "f.go"), false},
		{"nonexistent file outside", filepath.Join(w.base, "work", "new.txt"), false, filepath.Join(w.base, "work", "new.txt"), false},
		{"secret by absolute path", w.secret, false, w.secret, false},
		{"secret by ~", "~/.ssh/id_ed25519", false, w.secret, false},
		{"~ alone", "~", false, w.home, false},
		{"~user is refused", "~root/.ssh/id_ed25519", false, "", false},
		{"project through ~ and a link", "~/proj-link/main.go", true, filepath.Join(w.proj, "main.go"), false},
		{"dot-dot out", filepath.Join(w.proj, "..", "..", "home", ".ssh", "id_ed25519"), false, w.secret, false},
		{"relative dot-dot out", "../../home/.ssh/id_ed25519", false, w.secret, false},
		{"dot-dot out and back in", filepath.Join(w.proj, "..", "proj", "main.go"), true, filepath.Join(w.proj, "main.go"), false},
		{"prefix sibling", filepath.Join(w.proj2, "x"), false, filepath.Join(w.proj2, "x"), false},
		{"prefix sibling relative", "../proj2/x", false, filepath.Join(w.proj2, "x"), false},
		{"link to a file out", filepath.Join(w.proj, "key"), false, w.secret, false},
		{"link to a folder out", filepath.Join(w.proj, "ssh", "id_ed25519"), false, w.secret, false},
		{"relative link to the sibling", "sib/x", false, filepath.Join(w.proj2, "x"), false},
		{"link that stays inside", "alias.go", true, filepath.Join(w.proj, "main.go"), false},
		{"dangling link out", filepath.Join(w.proj, "dangling"), false, filepath.Join(w.home, "nowhere"), false},
		{"link loop", filepath.Join(w.proj, "loop1"), false, "", false},
		{"dot-dot through a link is physical", filepath.Join(w.proj, "ssh") + "/../.untether/untether.toml", false, "", false},
		{"state file inside the work dir", w.state, false, w.state, true},
		{"state file relative", ".untether/untether.db", false, w.state, true},
		{"state file through a link", "db", false, w.state, true},
		{"state file in another case", filepath.Join(w.proj, ".UNTETHER", "Untether.DB"), false, "", true},
		{"config file", w.config, false, w.config, false},
		{"my upload", filepath.Join(w.mine, "photo.jpg"), true, filepath.Join(w.mine, "photo.jpg"), false},
		{"their upload", filepath.Join(w.theirs, "photo.jpg"), false, filepath.Join(w.theirs, "photo.jpg"), false},
		{"their upload through my folder", filepath.Join(w.mine, "..", "200", "photo.jpg"), false, "", false},
		{"their upload through a link in mine", filepath.Join(w.mine, "peek", "photo.jpg"), false, filepath.Join(w.theirs, "photo.jpg"), false},
		{"the uploads root", w.uploads, false, w.uploads, false},
		{"a file used as a folder", filepath.Join(w.proj, "main.go", "x"), false, "", false},
		{"spaces around an outside path", "  " + w.secret + " ", false, "", false},
		{"root", "/", false, "/", false},
		{"empty", "", false, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := w.rule.Check(tc.path)
			if v.Inside != tc.inside {
				t.Errorf("Check(%q).Inside = %v, want %v (resolved %s)", tc.path, v.Inside, tc.inside, v.Path)
			}
			if tc.resolved != "" && v.Path != tc.resolved {
				t.Errorf("Check(%q).Path = %s, want %s", tc.path, v.Path, tc.resolved)
			}
			if v.Forbidden != tc.forbidden {
				t.Errorf("Check(%q).Forbidden = %v, want %v", tc.path, v.Forbidden, tc.forbidden)
			}
		})
	}
}

// A forbidden folder that is also listed as a root stays forbidden (a tie
// is forbidden), and an owner-listed root widens the rule.
func TestCheckRootsAndTies(t *testing.T) {
	w := newWorld(t)
	r := w.rule
	r.Roots = append(r.Roots, w.uploads, filepath.Join(w.home, ".ssh"))
	if v := r.Check(filepath.Join(w.theirs, "photo.jpg")); v.Inside {
		t.Errorf("another chat's upload is inside when the uploads root is also a root: %+v", v)
	}
	if v := r.Check(w.secret); !v.Inside {
		t.Errorf("a file in an owner-listed root is not inside: %+v", v)
	}
	if v := r.Check(w.uploads); v.Inside || !v.Forbidden {
		t.Errorf("uploads root listed as root and forbidden: %+v, want forbidden", v)
	}
}

// A root given through a link, or one that does not exist, is handled: the
// link is followed, the missing one holds nothing that exists... but a
// file under it is still placed by name.
func TestCheckRootThroughLink(t *testing.T) {
	w := newWorld(t)
	alias := filepath.Join(w.base, "alias")
	link(t, w.proj, alias)
	r := Rule{WorkDir: alias}
	if v := r.Check("main.go"); !v.Inside || v.Path != filepath.Join(w.proj, "main.go") {
		t.Errorf("relative to a linked work dir: %+v", v)
	}
	if v := (Rule{}).Check("main.go"); v.Inside {
		t.Errorf("a relative path with no work dir is inside: %+v", v)
	}
	if v := (Rule{WorkDir: "relative/dir"}).Check("main.go"); v.Inside {
		t.Errorf("a relative work dir places paths: %+v", v)
	}
}

// A link swapped after a first check is seen as it is now.
func TestCheckSeesSwappedLink(t *testing.T) {
	w := newWorld(t)
	l := filepath.Join(w.proj, "swap")
	link(t, "main.go", l)
	if !w.rule.Check(l).Inside {
		t.Fatal("link to main.go not inside")
	}
	if err := os.Remove(l); err != nil {
		t.Fatal(err)
	}
	link(t, w.secret, l)
	if v := w.rule.Check(l); v.Inside || v.Path != w.secret {
		t.Errorf("after the swap: %+v", v)
	}
}

func TestResolveLinksErrors(t *testing.T) {
	if _, err := ResolveLinks("relative"); err == nil {
		t.Error("a relative path resolved")
	}
	w := newWorld(t)
	link(t, "b", filepath.Join(w.proj, "a"))
	link(t, "a", filepath.Join(w.proj, "b"))
	if _, err := ResolveLinks(filepath.Join(w.proj, "a", "x")); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("loop: err = %v", err)
	}
}

func TestPatternBase(t *testing.T) {
	tests := []struct {
		pattern, base string
		ok            bool
	}{
		{"*.go", "", true},
		{"**/*.{ts,tsx}", "", true},
		{"src/**/*.go", "src", true},
		{"/etc/*", "/etc", true},
		{"/*", "/", true},
		{"../*", "..", true},
		{"../../home/.ssh/*", "../../home/.ssh", true},
		{"src/a.go", "src/a.go", true},
		{"~/.ssh/*", "~/.ssh", true},
		{"**/../../x", "", false},
		{"src/*/../../..", "", false},
		{"{/etc,src}/*", "", false},
		{"{..,src}/x", "", false},
		{"src/{a,b}/*.go", "src", true},
		{"node_modules/@types/*", "node_modules/@types", true},
		{"docs/?.md", "docs", true},
		{"**/.*rc", "", true},
	}
	for _, tc := range tests {
		base, ok := PatternBase(tc.pattern)
		if base != tc.base || ok != tc.ok {
			t.Errorf("PatternBase(%q) = %q, %v; want %q, %v", tc.pattern, base, ok, tc.base, tc.ok)
		}
	}
}

// TestPatternBaseAsksOddSyntax: a glob's wildcard part may use only *, ?,
// ** and flat braces whose every choice names more than dots. Brackets,
// extglobs, regex groups, escapes, negation and braces that can spell "."
// or ".." could name a folder outside the literal base without writing
// "..", so such a pattern is never placed (and so always asked).
func TestPatternBaseAsksOddSyntax(t *testing.T) {
	for _, pattern := range []string{
		"[.][.]/secret",
		"src/[.][.]/[.][.]/../x",
		"src/**/[.][.]/[.][.]/etc/passwd",
		"[.]./x",
		"@(..)/x",
		"@(.)@(.)/secret",
		"src/@(.|x)@(.|y)/z",
		"+(.)/x",
		"*(.)/x",
		"?(.)?(.)/x",
		"!(x)/y",
		"!src/*",
		"(.|x)(.|y)/z",
		"{..,x}/y",
		"{.,x}{.,y}/secret",
		"{,.}./x",
		".{,.}/x",
		"x/{.,a}/y",
		"{a,{.,b}}/x",
		"{1..3}/x",
		"**/../",
		"**/..",
		`\.\./x`,
		`.\./x`,
		`src/*\/../x`,
		"src/*|/etc/x",
	} {
		if base, ok := PatternBase(pattern); ok {
			t.Errorf("PatternBase(%q) = %q, true; want it refused (asked)", pattern, base)
		}
	}
}

// TestCheckWorkDirResolvedMoved: a working directory given as the place
// the process started in stops being a root once its name leads elsewhere
// (the project replaced by a link to $HOME while Claude runs there): $HOME
// does not become inside, relative paths are not placed, and the other
// roots still hold. Without the flag the name is followed, as before.
func TestCheckWorkDirResolvedMoved(t *testing.T) {
	w := newWorld(t)
	r := w.rule
	r.WorkDirResolved = true
	if v := r.Check("main.go"); !v.Inside {
		t.Fatalf("before the swap: %+v", v)
	}
	if err := os.Rename(w.proj, w.proj+".old"); err != nil {
		t.Fatal(err)
	}
	link(t, w.home, w.proj)
	for _, p := range []string{w.secret, ".ssh/id_ed25519", filepath.Join(w.proj, ".ssh", "id_ed25519")} {
		if v := r.Check(p); v.Inside {
			t.Errorf("after the work dir became a link to $HOME, %s is inside: %+v", p, v)
		}
	}
	if v := r.Check(filepath.Join(w.mine, "photo.jpg")); !v.Inside {
		t.Errorf("the upload folder stopped being a root: %+v", v)
	}
	r.WorkDirResolved = false
	if v := r.Check(w.secret); !v.Inside {
		t.Errorf("a plain rule does not follow its work dir's name: %+v", v)
	}
}

// TestCheckRefusesInvisible: a path holding a character that shows as
// nothing (BOM, zero-width space, bidi override, a control character) is
// not inside, however it would resolve. Before, "\ufeff/home/…/id_ed25519"
// was taken as a relative name inside the project (strings.TrimSpace keeps
// the BOM), while Claude Code's trim removes it and opens the key.
func TestCheckRefusesInvisible(t *testing.T) {
	w := newWorld(t)
	for _, p := range []string{"\ufeff" + w.secret, "\ufeffmain.go", "main.go\u200b", "ma\u202ein.go",
		filepath.Join(w.proj, "main.go") + "\x00", "\u2060main.go", "main\x7f.go", "main\xff.go"} {
		if v := w.rule.Check(p); v.Inside {
			t.Errorf("%q is inside: %+v", p, v)
		}
	}
	for _, p := range []string{" main.go\t", "\u00a0main.go", filepath.Join(w.proj, "naïve café.go")} {
		if v := w.rule.Check(p); !v.Inside {
			t.Errorf("%q is not inside: %+v", p, v)
		}
	}
}
