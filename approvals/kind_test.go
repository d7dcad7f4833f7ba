package approvals

import (
	"testing"

	"github.com/untether/untether/engine"
)

// The broker decides on the request's kind, not on the engine's tool
// name: another engine's question or plan gets the question and plan
// flows under its own names, and a tool that only bears the name of
// Claude Code's plan tool is an ordinary tool.
func TestDecidesByKind(t *testing.T) {
	r := &fakeResponder{}
	b, _ := newTestBroker(Config{SkipPermissions: true})
	q := toolReq("q", "ask_user", questionsJSON)
	q.Kind = engine.RequestQuestion
	if p := mustPrompt(t, b, q, r); p.Kind != KindQuestion || p.Question == nil {
		t.Errorf("a question under another name: prompt %+v, want the question flow", p)
	}

	b, _ = newTestBroker(Config{SkipPermissions: true})
	plan := withMode(toolReq("p", "present_plan", planInputJSON), engine.ModePlan, PlanOn)
	plan.Kind = engine.RequestPlan
	if p := mustPrompt(t, b, plan, r); p.Kind != KindPlan {
		t.Errorf("a plan under another name: prompt kind %q, want %q", p.Kind, KindPlan)
	}
	auto := withMode(toolReq("p2", "present_plan", planInputJSON), engine.ModePlan, PlanAuto)
	auto.Kind = engine.RequestPlan
	if sub := mustSubmit(t, b, auto, r); !sub.Auto() || sub.Reason != "plan mode auto" {
		t.Errorf("a plan in auto plan mode: %+v, want approved by plan mode auto", sub)
	}

	b, _ = newTestBroker(Config{SkipPermissions: true})
	named := toolReq("t", "ExitPlanMode", planInputJSON)
	named.Kind = engine.RequestTool
	if sub := mustSubmit(t, b, named, r); !sub.Auto() || sub.Reason != "skip permissions" {
		t.Errorf("a tool kind named like the plan tool: %+v, want a tool's decision (skip permissions)", sub)
	}
}
