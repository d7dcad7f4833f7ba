package scope

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder holding HEAD and a "commondir" file that names the project's
// own git directory is a git directory to git (objects/ and refs/ are
// looked for in the common dir): the owner's git, run in it (a shell
// prompt that shows git status is enough), takes it for a bare repository.
// When the project's config has extensions.worktreeConfig (git
// sparse-checkout sets it), git also reads the folder's config.worktree,
// which can name core.fsmonitor and core.worktree: a program run on the
// next `git status` there (measured with git 2.39.5). inGitDir counts only
// HEAD in the folder, so config.worktree is written unasked.
func TestCheckWriteCommondirGitDir(t *testing.T) {
	w := newWorld(t)
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		mkdir(t, filepath.Join(w.proj, d))
	}
	write(t, filepath.Join(w.proj, ".git", "HEAD"))
	mkdir(t, filepath.Join(w.proj, "evil"))
	write(t, filepath.Join(w.proj, "evil", "HEAD"))
	if err := os.WriteFile(filepath.Join(w.proj, "evil", "commondir"), []byte("../.git\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"evil/config.worktree", "evil/config"} {
		if v := w.rule.CheckWrite(p); v.Inside || !v.Sensitive {
			t.Errorf("write %s: %+v, want not inside (sensitive)", p, v)
		}
	}
	// And the file that makes it one: a folder with HEAD gets a commondir.
	mkdir(t, filepath.Join(w.proj, "evil2"))
	write(t, filepath.Join(w.proj, "evil2", "HEAD"))
	if v := w.rule.CheckWrite("evil2/commondir"); v.Inside || !v.Sensitive {
		t.Errorf("write evil2/commondir: %+v, want not inside (sensitive)", v)
	}
}

// A dotfiles setup: ~/.gitconfig is a link to a file in the owner's
// dotfiles project, where the chat works. The link's name is sensitive,
// its target is not, so Claude edits the owner's global git config
// (filters, core.pager, core.fsmonitor for every repository) unasked.
func TestCheckWriteGlobalGitConfigByLinkTarget(t *testing.T) {
	w := newWorld(t)
	write(t, filepath.Join(w.proj, "gitconfig"))
	link(t, filepath.Join(w.proj, "gitconfig"), filepath.Join(w.home, ".gitconfig"))
	mkdir(t, filepath.Join(w.home, ".config", "git"))
	write(t, filepath.Join(w.proj, "git-attributes"))
	link(t, filepath.Join(w.proj, "git-attributes"), filepath.Join(w.home, ".config", "git", "attributes"))
	for _, p := range []string{"gitconfig", "git-attributes"} {
		if v := w.rule.CheckWrite(p); v.Inside || !v.Sensitive {
			t.Errorf("write %s (the target of the owner's global git config): %+v, want not inside (sensitive)", p, v)
		}
	}
}
