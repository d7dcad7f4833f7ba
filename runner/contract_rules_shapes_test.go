package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudefiles"
	"github.com/untether/untether/runner/claudetest"
)

// plantLocalRule writes text as dir's .claude/settings.local.json.
func plantLocalRule(t *testing.T, dir, text string) {
	t.Helper()
	p := filepath.Join(dir, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@a", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@a")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// appliedUnasked runs one turn in work asking for each command, and tells
// which ran without an approval being asked (each asked one is denied).
func appliedUnasked(t *testing.T, r *rig, work string, cmds ...string) map[string]bool {
	t.Helper()
	var steps []claudetest.Step
	for _, c := range cmds {
		steps = append(steps, claudetest.Answer(bashUse(c)))
	}
	r.serve(append(steps, claudetest.Say("done"))...)
	s := r.start(func(o *Options) { o.WorkDir = work })
	asked := map[string]bool{}
	turn(t, s, "go", func(req engine.ApprovalRequest) {
		asked[inputField(t, req.Input, "command")] = true
		if err := s.Deny(ctxFor(t), req.RequestID, "no", false); err != nil {
			t.Fatal(err)
		}
	})
	unasked := map[string]bool{}
	for _, c := range cmds {
		unasked[c] = !asked[c]
	}
	return unasked
}

// toldOf tells whether the bot's reading of work's rules (what the chat
// is told) covers cmd's rule: the rule itself, or its file as unread.
func toldOf(t *testing.T, work, cmd string) bool {
	t.Helper()
	rules, err := claudefiles.ProjectRules(context.Background(), nil, work, false)
	for _, r := range rules {
		if r.Rule == "Bash("+cmd+")" || r.Unread {
			return true
		}
	}
	t.Logf("bot read %+v, %v", rules, err)
	return false
}

// TestContractProjectRulesShapes: settings files the real CLI (2.1.330)
// applies although Go read them differently: decoy keys Go's JSON matched
// case-insensitively ("Allow", "Permissions"), a byte order mark, a valid
// rule followed by 1 MiB of spaces. Each rule the CLI applies unasked must
// be told. Before the fix the bot saw no rule in each.
func TestContractProjectRulesShapes(t *testing.T) {
	const cmd = "touch a.txt"
	rule := `"Bash(` + cmd + `)"`
	for name, text := range map[string]string{
		"Allow decoy":       `{"permissions":{"allow":[` + rule + `],"Allow":[]}}`,
		"Permissions decoy": `{"permissions":{"allow":[` + rule + `]},"Permissions":{"allow":null}}`,
		"byte order mark":   "\ufeff" + `{"permissions":{"allow":[` + rule + `]}}`,
		"1 MiB of spaces":   `{"permissions":{"allow":[` + rule + `]}}` + strings.Repeat(" ", 1<<20),
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, true)
			work := r.opts.WorkDir
			plantLocalRule(t, work, text)
			unasked := appliedUnasked(t, r, work, cmd)
			t.Logf("%s: the CLI ran it unasked=%v", name, unasked[cmd])
			if unasked[cmd] && !toldOf(t, work, cmd) {
				t.Errorf("%s: the CLI ran %q unasked and the bot tells nothing", name, cmd)
			}
		})
	}
}

// TestContractProjectRulesWorktree measures which local file the real CLI
// takes rules from where .git is a file: in a `git worktree add` (working
// in a subfolder) the main repository's top's, not the worktree top's;
// and in a folder whose .git file an unpacked archive planted, naming a
// "worktree" git directory of a repository inside it (relative gitdir),
// that inner repository's. Every rule the CLI applies must be told.
func TestContractProjectRulesWorktree(t *testing.T) {
	t.Run("git worktree add", func(t *testing.T) {
		r := newRig(t, true)
		base := r.opts.WorkDir
		main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
		if err := os.MkdirAll(main, 0o755); err != nil {
			t.Fatal(err)
		}
		gitIn(t, main, "init", "-q")
		gitIn(t, main, "commit", "-q", "--allow-empty", "-m", "x")
		gitIn(t, main, "worktree", "add", "-q", wt)
		work := filepath.Join(wt, "sub")
		if err := os.MkdirAll(work, 0o755); err != nil {
			t.Fatal(err)
		}
		plantLocalRule(t, main, `{"permissions":{"allow":["Bash(touch m.txt)"]}}`)
		plantLocalRule(t, wt, `{"permissions":{"allow":["Bash(touch w.txt)"]}}`)
		unasked := appliedUnasked(t, r, work, "touch m.txt", "touch w.txt")
		t.Logf("main top's rule unasked=%v, worktree top's unasked=%v", unasked["touch m.txt"], unasked["touch w.txt"])
		if !unasked["touch m.txt"] || unasked["touch w.txt"] {
			t.Errorf("measured: the CLI applies the main top's rule and not the worktree top's; got %v", unasked)
		}
		for _, c := range []string{"touch m.txt", "touch w.txt"} {
			if !toldOf(t, work, c) {
				t.Errorf("the bot does not tell %q", c)
			}
		}
	})
	t.Run("planted .git file", func(t *testing.T) {
		r := newRig(t, true)
		x := r.opts.WorkDir
		plantInnerWorktree(t, x, "", "")
		unasked := appliedUnasked(t, r, x, "touch i.txt")
		t.Logf("inner repository's rule unasked=%v", unasked["touch i.txt"])
		if !unasked["touch i.txt"] {
			t.Errorf("measured: the CLI applies the inner repository's rule; got asked")
		}
		if !toldOf(t, x, "touch i.txt") {
			t.Error("the bot does not tell the inner repository's rule")
		}
	})
}

// plantInnerWorktree plants in x what an unpacked archive can: a .git file
// naming a "worktree" git directory of the repository x/vendor/inner
// (relative gitdir, commondir "../.."), whose top's local settings allow
// `Bash(touch i.txt)`. gitPad and commonPad follow the .git file's and the
// commondir's line.
func plantInnerWorktree(t *testing.T, x, gitPad, commonPad string) {
	t.Helper()
	inner := filepath.Join(x, "vendor", "inner")
	if err := os.MkdirAll(inner, 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn(t, inner, "init", "-q")
	wtDir := filepath.Join(inner, ".git", "worktrees", "w")
	if err := os.MkdirAll(wtDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		filepath.Join(wtDir, "commondir"): "../..\n" + commonPad,
		filepath.Join(wtDir, "gitdir"):    filepath.Join(x, ".git") + "\n",
		filepath.Join(wtDir, "HEAD"):      "ref: refs/heads/master\n",
		filepath.Join(x, ".git"):          "gitdir: vendor/inner/.git/worktrees/w\n" + gitPad,
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plantLocalRule(t, inner, `{"permissions":{"allow":["Bash(touch i.txt)"]}}`)
}
