package telegram

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/untether/untether/projects"
)

// TestWorktreeItemsMarkByThePathRule: the chat's worktree is found with
// the one path rule (scope.InRoots), so a worktree git names through a
// link still holds the chat's resolved directory (before, a lexical
// comparison missed it), and a prefix sibling does not.
func TestWorktreeItemsMarkByThePathRule(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	api, wt := filepath.Join(base, "api"), filepath.Join(base, "api.worktrees", "x")
	for _, d := range []string{filepath.Join(api, "src"), wt} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	alias := filepath.Join(base, "alias")
	if err := os.Symlink(api, alias); err != nil {
		t.Fatal(err)
	}
	list := []projects.Worktree{{Path: alias, Branch: "main", Main: true}, {Path: wt, Branch: "x"}}
	if items := worktreeItems(nil, list, filepath.Join(api, "src")); !items[0].Current || items[1].Current {
		t.Errorf("chat in %s/src: %+v, want the main worktree (named through a link) marked", api, items)
	}
	if items := worktreeItems(nil, list, base+"/api.worktrees"); items[0].Current || items[1].Current {
		t.Errorf("chat in the worktrees folder: %+v, want nothing marked", items)
	}
}
