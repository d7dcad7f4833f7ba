package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorktreesDirInRoots: [projects] worktrees_dir is checked with the
// one rule of /branch (scope.InRoots), so the config refuses exactly the
// folders /branch would. A folder not made yet is fine; one whose name is
// inside a root but whose link leads out is not (the old check also took
// the path as written, and passed it), nor a prefix sibling, nor a name
// with an invisible character.
func TestWorktreesDirInRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	code, out := filepath.Join(base, "code"), filepath.Join(base, "out")
	for _, d := range []string{code, out, filepath.Join(base, "code2")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(out, filepath.Join(code, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(code, filepath.Join(base, "code-link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, dir, want string // want "" = accepted
	}{
		{"not made yet", filepath.Join(code, "worktrees"), ""},
		{"through the root's link", filepath.Join(base, "code-link", "worktrees"), ""},
		{"through a link out", filepath.Join(code, "escape", "worktrees"), "is outside the directories the bot may work in"},
		{"prefix sibling", filepath.Join(base, "code2", "worktrees"), "is outside the directories the bot may work in"},
		{"invisible character", filepath.Join(code, "work\u202etrees"), "holds an invisible or direction-changing character"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := load(t, map[string]string{
				"claude.working_dir":     `"` + code + `"`,
				"claude.project_roots":   `["` + code + `"]`,
				"projects.worktrees_dir": `"` + c.dir + `"`,
			})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("worktrees_dir %s refused: %v", c.dir, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), "[projects] worktrees_dir: ") || !strings.Contains(err.Error(), c.want)):
				t.Errorf("worktrees_dir %s: err %v, want %q", c.dir, err, c.want)
			}
		})
	}
}
