package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudetest"
)

// TestContractProjectRulesWhichFiles measures which project settings files
// the CLI takes permission rules from when it works in a subfolder: the
// working directory's .claude/, the folder above it, or the git root's
// (runner/claudefiles.ProjectRules reads exactly those), and where Always
// allow's localSettings answer is written. Measured with 2.1.330: the
// settings.local.json of the working directory and of the git root (when
// there is one above), never a plain parent folder's. settings.json's
// permissions.allow is ignored (the CLI says so on stderr) under the bot's
// default --ignore-persisted-trust, and with ProjectSettings too unless
// the owner's ~/.claude.json records the folder as trusted (this fresh
// HOME does not). Always allow writes to the git root's local file.
func TestContractProjectRulesWhichFiles(t *testing.T) {
	for _, c := range []struct {
		git, trusted bool
	}{{true, false}, {false, false}, {true, true}, {false, true}} {
		name := "no git"
		if c.git {
			name = "git root above"
		}
		if c.trusted {
			name += ", project settings trusted"
		}
		git := c.git
		t.Run(name, func(t *testing.T) {
			r := newRig(t, false)
			root := r.opts.WorkDir
			sub := filepath.Join(root, "sub")
			if git {
				if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v %s", err, out)
				}
			}
			allow := func(dir, file, cmd string) {
				writeJSON(t, filepath.Join(dir, ".claude", file), map[string]any{
					"permissions": map[string]any{"allow": []string{"Bash(" + cmd + ")"}}})
			}
			cmds := map[string]string{}
			for _, d := range []struct{ dir, where string }{{root, "root"}, {sub, "sub"}} {
				for _, f := range []string{"settings.json", "settings.local.json"} {
					cmd := "touch " + d.where + "-" + f
					cmds[d.where+"/"+f] = cmd
					allow(d.dir, f, cmd)
				}
			}
			var steps []claudetest.Step
			keys := []string{"root/settings.json", "root/settings.local.json", "sub/settings.json", "sub/settings.local.json"}
			for _, k := range keys {
				steps = append(steps, claudetest.Answer(bashUse(cmds[k])))
			}
			steps = append(steps, claudetest.Answer(bashUse("touch always.txt")), claudetest.Say("done"))
			r.serve(steps...)
			s := r.start(func(o *Options) { o.WorkDir = sub; o.ProjectSettings = c.trusted })
			var asked []string
			log := turn(t, s, "Touch them.", func(req engine.ApprovalRequest) {
				cmd := inputField(t, req.Input, "command")
				asked = append(asked, cmd)
				var perms = req.Suggestions
				if cmd != "touch always.txt" {
					perms = nil
				}
				if err := s.Allow(ctxFor(t), req.RequestID, req.Input, perms); err != nil {
					t.Fatal(err)
				}
			})
			if !log.done.OK {
				t.Fatalf("turn = %+v%s", log.done, log)
			}
			for _, k := range keys {
				t.Logf("%s: asked=%v", k, slices.Contains(asked, cmds[k]))
			}
			for _, k := range keys {
				applies := (strings.HasPrefix(k, "sub/") || git) && strings.HasSuffix(k, ".local.json")
				if slices.Contains(asked, cmds[k]) == applies {
					t.Errorf("%s: asked=%v, want the rule to apply=%v", k, !applies, applies)
				}
			}
			for _, d := range []string{root, sub} {
				b, _ := os.ReadFile(filepath.Join(d, ".claude", "settings.local.json"))
				t.Logf("%s settings.local.json: %s", d, b)
				if strings.Contains(string(b), "always.txt") != ((d == sub) != git) {
					t.Errorf("Always allow's rule in %s: %s", d, b)
				}
			}
		})
	}
}
