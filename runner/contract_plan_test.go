package runner

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of plan mode: the plan file, ExitPlanMode and the mode switch.

const contractPlan = "# Plan\n\n1. Write result.txt\n"

// planSteps scripts a model that writes its plan to the file the CLI named,
// then asks to leave plan mode; planPath receives that file's path. It is
// atomic because the fake API's handler sets it and the race detector cannot
// see the ordering that goes through the CLI process.
func planSteps(planPath *atomic.Value) []claudetest.Step {
	return []claudetest.Step{
		claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
			path := claudetest.PlanFilePath(req)
			planPath.Store(path)
			if path == "" {
				return claudetest.Err(400, "contract test: the CLI named no plan file")
			}
			return claudetest.Answer(claudetest.Text("Writing the plan."),
				claudetest.ToolUse("Write", map[string]any{"file_path": path, "content": contractPlan}))
		}),
		claudetest.Answer(claudetest.ToolUse("ExitPlanMode", map[string]any{})),
	}
}

func TestContractPlanApproved(t *testing.T) {
	r := newRig(t, true)
	var planFile atomic.Value
	result := r.path("result.txt")
	r.serve(append(planSteps(&planFile),
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": result, "content": "built\n"})),
		claudetest.Say("Done."))...)
	s := r.start(func(o *Options) { o.PermissionMode = "plan" })
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Plan result.txt, then write it.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		if err := s.Allow(ctxFor(t), req.RequestID, req.Input, nil); err != nil {
			t.Fatal(err)
		}
	})
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].PermissionMode != "plan" {
		t.Errorf("SessionStarted = %+v, want mode plan", st)
	}
	// The plan file write is not asked; ExitPlanMode and the project write are.
	if len(asked) != 2 || asked[0].ToolName != "ExitPlanMode" || asked[1].ToolName != "Write" {
		t.Fatalf("approvals = %+v", asked)
	}
	exit := asked[0]
	planPath, _ := planFile.Load().(string)
	if !exit.RequiresUserInteraction || inputField(t, exit.Input, "plan") != contractPlan ||
		inputField(t, exit.Input, "planFilePath") != planPath {
		t.Errorf("ExitPlanMode request = %+v (plan file %s)", exit, planPath)
	}
	if home, _ := filepath.EvalSymlinks(r.home); planPath == "" || !filepath.IsAbs(planPath) ||
		!isUnder(planPath, filepath.Join(r.home, ".claude", "plans")) && !isUnder(planPath, filepath.Join(home, ".claude", "plans")) {
		t.Errorf("plan file %q is not under HOME/.claude/plans", planPath)
	}
	// The mode switches to default after the approval and before the write is asked.
	modeAt, writeAt := -1, -1
	for i, ev := range log.events {
		switch e := ev.(type) {
		case engine.PermissionModeChanged:
			if e.Mode == "default" && modeAt < 0 {
				modeAt = i
			}
		case engine.ApprovalRequest:
			if e.ToolName == "Write" {
				writeAt = i
			}
		}
	}
	if modeAt < 0 || modeAt > writeAt {
		t.Errorf("mode change to default at event %d, project write asked at %d:%s", modeAt, writeAt, log)
	}
	if got, err := os.ReadFile(result); err != nil || string(got) != "built\n" {
		t.Errorf("result.txt = %q, %v", got, err)
	}
	if tr := r.toolResultFor(exit.ToolUseID); tr.IsError {
		t.Errorf("ExitPlanMode result = %+v", tr)
	} else {
		t.Logf("ExitPlanMode allowed, the model reads: %.120q", tr.Content)
	}
	if !log.done.OK || log.done.Result != "Done." {
		t.Errorf("turn = %+v", log.done)
	}
}

func isUnder(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

func TestContractPlanDenied(t *testing.T) {
	const why = "Not this plan: make it shorter."
	r := newRig(t, true)
	var planFile atomic.Value
	r.serve(append(planSteps(&planFile), claudetest.Say("I will revise it."), claudetest.Say("Still planning."))...)
	s := r.start(func(o *Options) { o.PermissionMode = "plan" })
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Plan something.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		if err := s.Deny(ctxFor(t), req.RequestID, why, false); err != nil {
			t.Fatal(err)
		}
	})
	if len(asked) != 1 || asked[0].ToolName != "ExitPlanMode" {
		t.Fatalf("approvals = %+v", asked)
	}
	if ch := eventsOf[engine.PermissionModeChanged](log.events); len(ch) != 0 {
		t.Errorf("mode changed after a denied plan: %+v", ch)
	}
	if tr := r.toolResultFor(asked[0].ToolUseID); !tr.IsError || tr.Content != why {
		t.Errorf("the model received %+v, want the message verbatim", tr)
	}
	if !log.done.OK || log.done.Result != "I will revise it." {
		t.Errorf("turn = %+v", log.done)
	}
	// init at the next turn shows the mode is still plan.
	next := turn(t, s, "Go on.", nil)
	if st := eventsOf[engine.SessionStarted](next.events); len(st) != 1 || st[0].PermissionMode != "plan" {
		t.Errorf("next turn SessionStarted = %+v, want mode plan", st)
	}
}
