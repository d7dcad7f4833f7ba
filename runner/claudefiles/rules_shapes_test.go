package claudefiles

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

// TestProjectRulesExactKeys: the CLI reads "permissions" and "allow" by
// their exact names, the last of duplicates winning. A decoy key that Go's
// case-insensitive struct decoding took for the real one ("Allow",
// "Permissions", "permiſsions" with the long s folded to s) hid the rule before.
func TestProjectRulesExactKeys(t *testing.T) {
	const rule = `"Bash(touch a.txt)"`
	for name, c := range map[string]struct {
		text string
		want []string
	}{
		"Allow decoy":       {`{"permissions":{"allow":[` + rule + `],"Allow":[]}}`, []string{"Bash(touch a.txt)"}},
		"Permissions decoy": {`{"permissions":{"allow":[` + rule + `]},"Permissions":{"allow":null}}`, []string{"Bash(touch a.txt)"}},
		"long s decoy":      {`{"permissions":{"allow":[` + rule + `]},"permiſsions":{"allow":[]}}`, []string{"Bash(touch a.txt)"}},
		"later duplicate":   {`{"permissions":{},"permissions":{"allow":[` + rule + `]}}`, []string{"Bash(touch a.txt)"}},
		"allow not a list":  {`{"permissions":{"allow":"Bash"}}`, []string{`"Bash"`}},
		"byte order mark":   {"\ufeff" + `{"permissions":{"allow":[` + rule + `]}}`, []string{"Bash(touch a.txt)"}},
		"earlier duplicate": {`{"permissions":{"allow":[` + rule + `]},"permissions":{}}`, nil},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".claude", "settings.local.json")
			plant(t, path, c.text)
			got, err := ProjectRules(context.Background(), nil, dir, false)
			var rules []string
			for _, r := range got {
				rules = append(rules, r.Rule)
			}
			if err != nil || !slices.Equal(rules, c.want) {
				t.Errorf("ProjectRules = %+v, %v; want rules %q", got, err, c.want)
			}
		})
	}
}

// TestProjectRulesUnreadTold: a settings file that exists but cannot be
// read or parsed is an Unread rule naming it (the CLI may apply it: it
// does for a file of a valid rule and 1 MiB of spaces, which was over the
// bot's cap), never nothing.
func TestProjectRulesUnreadTold(t *testing.T) {
	for name, text := range map[string]string{
		"over 1 MiB":   `{"permissions":{"allow":["Bash(touch h.txt)"]}}` + strings.Repeat(" ", 1<<20),
		"over the cap": `{"permissions":{"allow":["Bash(touch h.txt)"]}}` + strings.Repeat(" ", maxSettings),
		"comment":      "// hi\n" + `{"permissions":{"allow":["Bash"]}}`,
		"not a map":    `{"permissions":["Bash"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".claude", "settings.local.json")
			plant(t, path, text)
			got, err := ProjectRules(context.Background(), nil, dir, false)
			if len(got) == 0 {
				t.Fatalf("ProjectRules = none, %v", err)
			}
			if name == "over 1 MiB" {
				if err != nil || got[0].Rule != "Bash(touch h.txt)" {
					t.Errorf("ProjectRules = %+v, %v; want the rule", got, err)
				}
				return
			}
			if want := (engine.ProjectRule{File: path, Unread: true}); got[0] != want || err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("ProjectRules = %+v, %v; want %+v and an error naming the file", got, err, want)
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@a", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// TestProjectRulesWorktree: where .git is a file, the CLI takes the rules
// of the repository's main top (gitdir, then commondir): a real worktree,
// and a layout an unpacked archive plants, with the gitdir relative or
// absolute. The worktree top's own file is read too.
func TestProjectRulesWorktree(t *testing.T) {
	local := func(d string) string { return filepath.Join(d, ".claude", "settings.local.json") }
	rules := func(t *testing.T, dir string) []string {
		t.Helper()
		got, err := ProjectRules(context.Background(), nil, dir, false)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, r := range got {
			files = append(files, r.File)
		}
		return files
	}
	t.Run("git worktree add", func(t *testing.T) {
		base := t.TempDir()
		main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
		if err := os.MkdirAll(main, 0o755); err != nil {
			t.Fatal(err)
		}
		git(t, main, "init", "-q")
		git(t, main, "commit", "-q", "--allow-empty", "-m", "x")
		git(t, main, "worktree", "add", "-q", wt)
		plant(t, local(main), `{"permissions":{"allow":["Bash(touch m.txt)"]}}`)
		plant(t, local(wt), `{"permissions":{"allow":["Bash(touch w.txt)"]}}`)
		sub := filepath.Join(wt, "sub")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := rules(t, sub); !slices.Equal(got, []string{local(wt), local(main)}) {
			t.Errorf("files told = %q, want the worktree's and the main top's", got)
		}
	})
	for _, abs := range []bool{false, true} {
		name := "planted, relative gitdir"
		if abs {
			name = "planted, absolute gitdir"
		}
		t.Run(name, func(t *testing.T) {
			x := t.TempDir()
			inner := filepath.Join(x, "vendor", "inner")
			wtDir := filepath.Join(inner, ".git", "worktrees", "w")
			plant(t, filepath.Join(wtDir, "commondir"), "../..\n")
			plant(t, filepath.Join(wtDir, "gitdir"), filepath.Join(x, ".git")+"\n")
			gitdir := "vendor/inner/.git/worktrees/w"
			if abs {
				gitdir = wtDir
			}
			plant(t, filepath.Join(x, ".git"), "gitdir: "+gitdir+"\n")
			plant(t, local(inner), `{"permissions":{"allow":["Bash(touch i.txt)"]}}`)
			if got := rules(t, x); !slices.Equal(got, []string{local(inner)}) {
				t.Errorf("files told = %q, want the inner repository's", got)
			}
		})
	}
	t.Run("a .git file naming nothing", func(t *testing.T) {
		x := t.TempDir()
		plant(t, filepath.Join(x, ".git"), "nothing")
		plant(t, local(x), `{"permissions":{"allow":["Bash"]}}`)
		if got := rules(t, x); !slices.Equal(got, []string{local(x)}) {
			t.Errorf("files told = %q", got)
		}
	})
}

// TestProjectRulesReadOutside: a reading tool's rule is told when it
// reaches outside the project (any path, absolute, home, climbing), not
// when it stays inside.
func TestProjectRulesReadOutside(t *testing.T) {
	dir := t.TempDir()
	plant(t, filepath.Join(dir, ".claude", "settings.local.json"), `{"permissions":{"allow":[
"Read","Read(//home/o/**)","Read(~/.ssh/*)","Glob(../../**)","Grep(src/../../x)","LS(~)",
"Read(src/**)","Read(/docs/*.md)","Read(./x)","Grep(*)","WebSearch","TodoWrite"]}}`)
	got, err := ProjectRules(context.Background(), nil, dir, false)
	var rules []string
	for _, r := range got {
		rules = append(rules, r.Rule)
	}
	want := []string{"Read", "Read(//home/o/**)", "Read(~/.ssh/*)", "Glob(../../**)", "Grep(src/../../x)", "LS(~)"}
	if err != nil || !slices.Equal(rules, want) {
		t.Errorf("rules = %q, %v; want %q", rules, err, want)
	}
}
