package scope

import (
	"os"
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

// TestCheckWriteGitConfig: git's own configuration is a place where a
// written file names programs (filters, hooks, pagers), so a write there
// is always asked, however the path is spelled: the owner's global config
// folder (~/.config/git, $XDG_CONFIG_HOME/git), $GIT_CONFIG_GLOBAL, and any
// git directory, whatever its name (a separate git dir "repo.git", a bare
// repository), reached directly or through a link. A folder that is about
// to become one (two of HEAD or config, objects/, refs/ present) counts,
// so a bare repository cannot be assembled file by file unasked.
func TestCheckWriteGitConfig(t *testing.T) {
	w := newWorld(t)
	// The owner made their home a root: ~/.config/git is under it.
	w.rule.Roots = append(w.rule.Roots, w.home)
	xdg := filepath.Join(w.base, "xdg")
	mkdir(t, xdg)
	w.rule.Roots = append(w.rule.Roots, xdg)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	global := filepath.Join(w.proj, "conf", "my.gitconfig")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	// A separate git dir and a bare repository inside the project.
	for _, d := range []string{"repo.git/objects", "repo.git/refs/heads", "bare/objects", "bare/refs"} {
		mkdir(t, filepath.Join(w.proj, d))
	}
	write(t, filepath.Join(w.proj, "repo.git", "HEAD"))
	link(t, filepath.Join(w.proj, "repo.git"), filepath.Join(w.proj, "innocent"))
	// Half-made: HEAD and config so far; objects/ would be the second kind.
	mkdir(t, filepath.Join(w.proj, "half"))
	write(t, filepath.Join(w.proj, "half", "HEAD"))
	// Only objects/ so far: HEAD would make two kinds.
	mkdir(t, filepath.Join(w.proj, "objs", "objects"))
	for _, p := range []string{
		filepath.Join(w.home, ".config", "git", "config"),
		filepath.Join(w.home, ".config", "git", "attributes"),
		filepath.Join(w.home, ".config", "git", "ignore"),
		filepath.Join(w.home, ".CONFIG", "Git", "config"),
		filepath.Join(xdg, "git", "config"),
		global, "conf/my.gitconfig",
		"repo.git/config", "repo.git/info/attributes", "repo.git/hooks/post-checkout", "innocent/config",
		"bare/config", "bare/HEAD",
		"half/objects/info/packs", "half/config",
		"objs/HEAD",
	} {
		v := w.rule.CheckWrite(p)
		if v.Inside || !v.Sensitive {
			t.Errorf("write %s: %+v, want not inside (sensitive)", p, v)
		}
		if r := w.rule.Check(p); !r.Inside {
			t.Errorf("read %s: %+v, want inside", p, r)
		}
	}
	for _, p := range []string{"config", "config/app.yaml", "refs/notes.md", "objects/model.bin", "objs/objects/x.txt",
		"half/notes.md", filepath.Join(w.home, ".config", "gitk"), filepath.Join(w.home, "git", "config")} {
		if v := w.rule.CheckWrite(p); !v.Inside || v.Sensitive {
			t.Errorf("write %s: %+v, want inside", p, v)
		}
	}
}

// A dotfiles setup links the owner's start-up files and folders into a
// project (~/.bashrc → dotfiles/bashrc, ~/.ssh → dotfiles/ssh): the
// targets are what runs at the next login, so writing them is asked like
// writing the names.
func TestCheckWriteDotfileLinkTargets(t *testing.T) {
	w := newWorld(t)
	mkdir(t, filepath.Join(w.proj, "dotfiles", "ssh"))
	write(t, filepath.Join(w.proj, "dotfiles", "bashrc"))
	link(t, filepath.Join(w.proj, "dotfiles", "bashrc"), filepath.Join(w.home, ".bashrc"))
	if err := os.RemoveAll(filepath.Join(w.home, ".ssh")); err != nil {
		t.Fatal(err)
	}
	link(t, filepath.Join(w.proj, "dotfiles", "ssh"), filepath.Join(w.home, ".ssh"))
	for _, p := range []string{"dotfiles/bashrc", "dotfiles/ssh/authorized_keys", "dotfiles/ssh/config"} {
		if v := w.rule.CheckWrite(p); v.Inside || !v.Sensitive {
			t.Errorf("write %s (a dotfile's target): %+v, want not inside (sensitive)", p, v)
		}
	}
	if v := w.rule.CheckWrite("dotfiles/README.md"); !v.Inside {
		t.Errorf("write dotfiles/README.md: %+v, want inside", v)
	}
}
