package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/untether/untether/runner/claudefiles"
)

// TestContractProjectRulesPaddedGitFile: a planted .git file, or the
// commondir it leads to, padded with 70,000 newlines (past the 64 KiB the
// bot read of them before) is still followed by the real CLI (2.1.330),
// which applies the inner repository's rule unasked. The bot must tell
// that rule; before the fix its read failed and it told nothing at all.
func TestContractProjectRulesPaddedGitFile(t *testing.T) {
	pad := strings.Repeat("\n", 70000)
	for name, p := range map[string][2]string{
		".git padded":      {pad, ""},
		"commondir padded": {"", pad},
	} {
		t.Run(name, func(t *testing.T) {
			r := newRig(t, true)
			x := r.opts.WorkDir
			plantInnerWorktree(t, x, p[0], p[1])
			unasked := appliedUnasked(t, r, x, "touch i.txt")
			t.Logf("inner repository's rule unasked=%v", unasked["touch i.txt"])
			if !unasked["touch i.txt"] {
				t.Errorf("measured: the CLI follows the padded file and applies the inner repository's rule; got asked")
			}
			rules, err := claudefiles.ProjectRules(context.Background(), nil, x, false)
			var told bool
			for _, r := range rules {
				told = told || r.Rule == "Bash(touch i.txt)"
			}
			if !told || err != nil {
				t.Errorf("the bot read %+v, %v; want the inner repository's rule", rules, err)
			}
		})
	}
}
