package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// TestContractSafetyChecks pins down what the CLI says about writes it
// treats as dangerous even inside the working directory, which the
// approvals broker relies on (a safety check is never approved without the
// owner): writes to .claude/, .git/, .mcp.json and shell start-up files
// come with decision_reason_type "safetyCheck" and classifier_approvable
// true; rm -rf / with "safetyCheck" and classifier_approvable false; a
// write under .ssh/ or to an ordinary file has no reason at all (so the
// broker's own path rule must catch .ssh/), and a write outside the
// working directory has "workingDir".
func TestContractSafetyChecks(t *testing.T) {
	r := newRig(t, true)
	outside := t.TempDir()
	if err := os.MkdirAll(r.path(".git/hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p string) claudetest.Reply {
		return claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": p, "content": "{}"}))
	}
	files := []string{".claude/settings.local.json", ".git/hooks/pre-commit", ".mcp.json", ".bashrc", ".ssh/authorized_keys", "ok.txt"}
	var steps []claudetest.Step
	for _, f := range files {
		steps = append(steps, write(r.path(f)))
	}
	steps = append(steps, write(filepath.Join(outside, "x.txt")),
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "rm -rf /", "description": "d"})),
		claudetest.Say("done"))
	r.serve(steps...)
	s := r.start()
	var got []string
	log := turn(t, s, "Write them.", func(req engine.ApprovalRequest) {
		what := inputField(t, req.Input, "file_path")
		if req.ToolName == "Bash" {
			what = inputField(t, req.Input, "command")
		}
		approvable := "absent"
		if req.ClassifierApprovable != nil {
			approvable = map[bool]string{true: "true", false: "false"}[*req.ClassifierApprovable]
		}
		what = strings.Replace(strings.Replace(what, r.opts.WorkDir, "<work>", 1), outside, "<out>", 1)
		got = append(got, req.ToolName+" "+what+" reason="+req.DecisionReasonType+" approvable="+approvable)
		if err := s.Deny(ctxFor(t), req.RequestID, "no", false); err != nil {
			t.Fatal(err)
		}
	})
	if !log.done.OK {
		t.Fatalf("turn: %+v%s", log.done, log)
	}
	want := []string{
		"Write <work>/.claude/settings.local.json reason=safetyCheck approvable=true",
		"Write <work>/.git/hooks/pre-commit reason=safetyCheck approvable=true",
		"Write <work>/.mcp.json reason=safetyCheck approvable=true",
		"Write <work>/.bashrc reason=safetyCheck approvable=true",
		"Write <work>/.ssh/authorized_keys reason= approvable=absent",
		"Write <work>/ok.txt reason= approvable=absent",
		"Write <out>/x.txt reason=workingDir approvable=absent",
		"Bash rm -rf / reason=safetyCheck approvable=false",
	}
	if !slices.Equal(got, want) {
		t.Errorf("asked:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
