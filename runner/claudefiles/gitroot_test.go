package claudefiles

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// plantInner plants in x a .git file naming a "worktree" git directory of
// the repository x/vendor/inner, whose top's local settings hold a rule;
// gitPad and commonPad follow the .git file's and the commondir's line.
// It returns the .git file, the commondir and the inner top's settings.
func plantInner(t *testing.T, x, gitPad, commonPad string) (gitFile, commondir, settings string) {
	t.Helper()
	inner := filepath.Join(x, "vendor", "inner")
	wtDir := filepath.Join(inner, ".git", "worktrees", "w")
	gitFile, commondir = filepath.Join(x, ".git"), filepath.Join(wtDir, "commondir")
	settings = filepath.Join(inner, ".claude", "settings.local.json")
	plant(t, commondir, "../..\n"+commonPad)
	plant(t, gitFile, "gitdir: vendor/inner/.git/worktrees/w\n"+gitPad)
	plant(t, settings, `{"permissions":{"allow":["Bash(touch i.txt)"]}}`)
	return gitFile, commondir, settings
}

// failing is the local machine but for one path, whose Lstat or ReadFile
// fails as a remote machine's or a deadline's would.
type failing struct {
	host.Local
	path        string
	lstat, read error
}

func (f failing) Lstat(ctx context.Context, p string) (fs.FileInfo, error) {
	if p == f.path && f.lstat != nil {
		return nil, f.lstat
	}
	return f.Local.Lstat(ctx, p)
}

func (f failing) ReadFile(ctx context.Context, p string, max int64) ([]byte, error) {
	if p == f.path && f.read != nil {
		return nil, f.read
	}
	return f.Local.ReadFile(ctx, p, max)
}

// TestProjectRulesPaddedGitFile: a .git file or commondir padded with
// 70,000 newlines is followed, as the CLI follows it (measured:
// runner.TestContractProjectRulesPaddedGitFile): before, the 64 KiB cap
// failed the read and the inner repository's rule was not told.
func TestProjectRulesPaddedGitFile(t *testing.T) {
	pad := strings.Repeat("\n", 70000)
	for name, p := range map[string][2]string{".git": {pad, ""}, "commondir": {"", pad + " \t\ufeff"}} {
		t.Run(name, func(t *testing.T) {
			x := t.TempDir()
			_, _, settings := plantInner(t, x, p[0], p[1])
			got, err := ProjectRules(context.Background(), nil, x, false)
			want := []engine.ProjectRule{{Rule: "Bash(touch i.txt)", File: settings}}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("ProjectRules = %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

// TestProjectRulesGitFileUnread: a .git file or commondir that exists but
// cannot be followed (over the cap, a read error, an Lstat error other
// than not existing) is an Unread entry naming it, and named in the
// error: the CLI may follow it to rules the bot cannot see. Before, each
// made the bot tell nothing.
func TestProjectRulesGitFileUnread(t *testing.T) {
	over := strings.Repeat("\n", maxSettings+1)
	deadline := context.DeadlineExceeded
	for name, c := range map[string]struct {
		gitPad, commonPad string
		fail              func(gitFile, commondir string) host.Host
		unread            func(gitFile, commondir string) string
	}{
		".git over the cap":      {gitPad: over, unread: func(g, _ string) string { return g }},
		"commondir over the cap": {commonPad: over, unread: func(_, c string) string { return c }},
		".git read error": {
			fail:   func(g, _ string) host.Host { return failing{path: g, read: deadline} },
			unread: func(g, _ string) string { return g }},
		"commondir read error": {
			fail:   func(_, c string) host.Host { return failing{path: c, read: fs.ErrPermission} },
			unread: func(_, c string) string { return c }},
		".git Lstat error": {
			fail:   func(g, _ string) host.Host { return failing{path: g, lstat: deadline} },
			unread: func(g, _ string) string { return g }},
	} {
		t.Run(name, func(t *testing.T) {
			x := t.TempDir()
			gitFile, commondir, _ := plantInner(t, x, c.gitPad, c.commonPad)
			var h host.Host
			if c.fail != nil {
				h = c.fail(gitFile, commondir)
			}
			got, err := ProjectRules(context.Background(), h, x, false)
			file := c.unread(gitFile, commondir)
			if !slices.Contains(got, engine.ProjectRule{File: file, Unread: true}) || err == nil || !strings.Contains(err.Error(), file) {
				t.Errorf("ProjectRules = %+v, %v; want %s unread and named in the error", got, err, file)
			}
		})
	}
}

// TestProjectRulesGitQuiet: what git itself writes tells no unread file: a
// .git folder, a symbolic link to one, a submodule's .git file (its git
// directory has no commondir), a gitdir that does not exist.
func TestProjectRulesGitQuiet(t *testing.T) {
	for name, plantGit := range map[string]func(t *testing.T, x string){
		"folder": func(t *testing.T, x string) { plant(t, filepath.Join(x, ".git", "HEAD"), "ref: refs/heads/main\n") },
		"link to a folder": func(t *testing.T, x string) {
			plant(t, filepath.Join(x, "real", "HEAD"), "ref: refs/heads/main\n")
			if err := os.Symlink("real", filepath.Join(x, ".git")); err != nil {
				t.Fatal(err)
			}
		},
		"submodule": func(t *testing.T, x string) {
			plant(t, filepath.Join(x, "modules", "m", "HEAD"), "ref: refs/heads/main\n")
			plant(t, filepath.Join(x, ".git"), "gitdir: modules/m\n")
		},
		"gitdir missing": func(t *testing.T, x string) { plant(t, filepath.Join(x, ".git"), "gitdir: nowhere\n") },
	} {
		t.Run(name, func(t *testing.T) {
			x := t.TempDir()
			plantGit(t, x)
			local := filepath.Join(x, ".claude", "settings.local.json")
			plant(t, local, `{"permissions":{"allow":["Bash"]}}`)
			got, err := ProjectRules(context.Background(), nil, x, false)
			if want := []engine.ProjectRule{{Rule: "Bash", File: local}}; err != nil || !slices.Equal(got, want) {
				t.Errorf("ProjectRules = %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

// A deadline on the way up is not taken for "no repository": the walk
// stops there and tells the .git it could not look at.
func TestGitTopsLstatError(t *testing.T) {
	x := t.TempDir()
	sub := filepath.Join(x, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	h := failing{path: filepath.Join(x, "a", ".git"), lstat: context.DeadlineExceeded}
	tops, unread := gitTops(context.Background(), h, sub)
	if len(tops) != 0 || len(unread) != 1 || unread[0].Path != h.path || !errors.Is(unread[0], context.DeadlineExceeded) {
		t.Errorf("gitTops = %q, %v; want no top and %s unread", tops, unread, h.path)
	}
}
