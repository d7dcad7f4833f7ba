package scope

import (
	"path/filepath"
	"testing"
)

// TestCheckWriteSensitive: inside the working directory, a write to a
// place where files are run or trusted (git hooks, Claude Code's settings
// and MCP config, shell start-up files, npm and git config, ssh) is not
// inside, whether it is named directly or reached through a link; reading
// the same paths stays inside, and ordinary writes do too.
func TestCheckWriteSensitive(t *testing.T) {
	w := newWorld(t)
	mkdir(t, filepath.Join(w.proj, ".git", "hooks"))
	link(t, filepath.Join(w.proj, ".git", "hooks"), filepath.Join(w.proj, "hooks")) // an innocent name for .git/hooks
	link(t, filepath.Join(w.proj, "sub"), filepath.Join(w.proj, ".claude"))         // .claude is a link to a plain folder
	for _, p := range []string{
		".claude/settings.local.json", ".claude/settings.json", ".claude/commands/x.md",
		".git/hooks/pre-commit", ".git/config", "hooks/pre-commit", ".GIT/hooks/pre-commit",
		".mcp.json", ".claude.json", "sub/pkg/.npmrc", ".npmrc", ".gitconfig", ".gitmodules",
		".bashrc", ".zshrc", ".profile", ".bash_profile", ".ssh/authorized_keys", ".vscode/tasks.json", ".envrc",
		filepath.Join(w.proj, ".git", "hooks", "post-checkout"),
	} {
		v := w.rule.CheckWrite(p)
		if v.Inside || !v.Sensitive {
			t.Errorf("write %s: %+v, want not inside (sensitive)", p, v)
		}
		if r := w.rule.Check(p); !r.Inside || r.Sensitive {
			t.Errorf("read %s: %+v, want inside", p, r)
		}
	}
	for _, p := range []string{"main.go", "src/new.go", "gitconfig.md", ".github/workflows/ci.yml", "docs/.claude-notes.md"} {
		if v := w.rule.CheckWrite(p); !v.Inside || v.Sensitive {
			t.Errorf("write %s: %+v, want inside", p, v)
		}
	}
	// Outside the scope a sensitive write is simply outside.
	if v := w.rule.CheckWrite(filepath.Join(w.home, ".bashrc")); v.Inside || v.Sensitive {
		t.Errorf("write ~/.bashrc: %+v, want outside, not merely sensitive", v)
	}
}
