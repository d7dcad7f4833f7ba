package approvals

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/cooldown"
)

func planReq(id, plan string) Request {
	in, _ := json.Marshal(map[string]string{"plan": plan, "planFilePath": "/home/user/.claude/plans/p.md"})
	r := toolReq(id, "ExitPlanMode", string(in))
	r.PermissionMode, r.PlanMode = "plan", PlanOn
	return r
}

const shortPlan = "# Plan\n1. Write plan-result.txt\n2. Report back\n"

func autoDenied(t *testing.T, b *Broker, req Request, r *fakeResponder, reason string) string {
	t.Helper()
	before := len(r.all())
	sub := mustSubmit(t, b, req, r)
	if !sub.Auto() || sub.Outcome != OutcomeDenied || sub.Reason != reason {
		t.Fatalf("Submit(%s) = %+v, want auto-denied by %q", req.RequestID, sub, reason)
	}
	calls := r.all()
	if len(calls) != before+1 {
		t.Fatalf("auto deny wrote %d answers", len(calls)-before)
	}
	c := calls[before]
	if c.allow || c.id != req.RequestID || c.message != sub.Message {
		t.Fatalf("auto deny wrote %+v, submission %+v", c, sub)
	}
	return c.message
}

func TestPlanFlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cool := cooldown.New(cooldown.DefaultBase, cooldown.DefaultMax, nil)
		b, _ := newTestBroker(Config{Cooldown: cool})
		r := &fakeResponder{}

		// Text before any Outline press does not count toward the gate.
		b.NoteAssistantText("100", strings.Repeat("x", 500))

		p := mustPrompt(t, b, planReq("p1", shortPlan), r)
		if p.Kind != KindPlan || p.Plan != shortPlan || p.PlanFile != "/home/user/.claude/plans/p.md" {
			t.Fatalf("plan prompt = %+v", p)
		}
		var kinds []ActionKind
		for _, a := range p.Actions {
			kinds = append(kinds, a.Kind)
		}
		if fmt.Sprint(kinds) != fmt.Sprint([]ActionKind{ActionApprove, ActionDeny, ActionOutline}) {
			t.Fatalf("plan actions = %v", kinds)
		}

		res := mustPress(t, b, tokenOf(t, p, ActionOutline))
		if res.Outcome != OutcomeOutline {
			t.Fatalf("outline result = %+v", res)
		}
		c := r.only(t)
		if c.allow || c.interrupt || c.message != msgOutline || !strings.Contains(c.message, "ExitPlanMode again") {
			t.Fatalf("outline wrote %+v", c)
		}
		if active, left, n := cool.Check("100"); !active || left != 30*time.Second || n != 1 {
			t.Fatalf("cooldown after outline = %v %v %d", active, left, n)
		}

		// Back at once: the cooldown answers, the user is not asked.
		msg := autoDenied(t, b, planReq("p2", shortPlan), r, "plan cooldown")
		if !strings.Contains(msg, "outline") || !strings.Contains(msg, "30 seconds") {
			t.Fatalf("cooldown message %q", msg)
		}

		// After the window, but with a short outline: the gate answers.
		b.NoteAssistantText("100", strings.Repeat("o", 150))
		b.NoteAssistantText("other-session", strings.Repeat("o", 500))
		time.Sleep(31 * time.Second)
		msg = autoDenied(t, b, planReq("p3", shortPlan), r, "outline gate")
		if !strings.Contains(msg, "only 150 characters") || !strings.Contains(msg, "at least 200") {
			t.Fatalf("gate message %q", msg)
		}

		// Enough outline: the user is asked again.
		b.NoteAssistantText("100", "  "+strings.Repeat("é", 49)+"\n ") // counted in runes, trimmed
		msg = autoDenied(t, b, planReq("p4", shortPlan), r, "outline gate")
		if !strings.Contains(msg, "only 199 characters") {
			t.Fatalf("gate message %q", msg)
		}
		b.NoteAssistantText("100", "!")
		req := planReq("p5", shortPlan)
		p = mustPrompt(t, b, req, r)
		if active, _, n := cool.Check("100"); active || n != 1 {
			t.Fatalf("cooldown before approve = %v %d, want expired with count 1", active, n)
		}
		res = mustPress(t, b, tokenOf(t, p, ActionApprove))
		if res.Outcome != OutcomeApproved {
			t.Fatalf("approve result = %+v", res)
		}
		calls := r.all()
		last := calls[len(calls)-1]
		if !last.allow || last.id != "p5" || !bytes.Equal(last.input, req.Input) {
			t.Fatalf("approve wrote %+v", last)
		}
		if active, left, n := cool.Check("100"); active || left != 0 || n != 0 {
			t.Fatalf("cooldown after approve = %v %v %d, want reset", active, left, n)
		}
		// The gate is cleared too: a short plan is asked about at once.
		mustPrompt(t, b, planReq("p6", shortPlan), r)
	})
}

func TestPlanDenyAndEscalation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cool := cooldown.New(cooldown.DefaultBase, cooldown.DefaultMax, nil)
		b, _ := newTestBroker(Config{Cooldown: cool})
		r := &fakeResponder{}
		outline := func(id string) {
			t.Helper()
			p := mustPrompt(t, b, planReq(id, shortPlan), r)
			mustPress(t, b, tokenOf(t, p, ActionOutline))
		}
		outline("p1")
		time.Sleep(31 * time.Second)
		b.NoteAssistantText("100", strings.Repeat("o", 200))
		outline("p2")
		if active, left, n := cool.Check("100"); !active || left != 60*time.Second || n != 2 {
			t.Fatalf("second outline: %v %v %d, want a 60s window", active, left, n)
		}
		time.Sleep(59 * time.Second)
		autoDenied(t, b, planReq("p3", shortPlan), r, "plan cooldown")
		time.Sleep(2 * time.Second)
		// The gate was re-armed by the second outline, so 200 new characters are needed.
		autoDenied(t, b, planReq("p4", shortPlan), r, "outline gate")
		b.NoteAssistantText("100", strings.Repeat("o", 200))
		p := mustPrompt(t, b, planReq("p5", shortPlan), r)
		res := mustPress(t, b, tokenOf(t, p, ActionDeny))
		calls := r.all()
		last := calls[len(calls)-1]
		if res.Outcome != OutcomeDenied || last.allow || last.message != msgPlanDenied ||
			!strings.Contains(last.message, "Do not call ExitPlanMode again") {
			t.Fatalf("plan deny: result %+v, wrote %+v", res, last)
		}
		if _, _, n := cool.Check("100"); n != 0 {
			t.Fatalf("deny did not reset the cooldown (count %d)", n)
		}
		mustPrompt(t, b, planReq("p6", shortPlan), r) // gate cleared
	})
}

func TestPlanGateVariants(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		longPlan := strings.Repeat("step\n", 45) // 224 visible characters once trimmed

		tests := []struct {
			name   string
			cfg    Config
			wait   time.Duration
			plan   string
			mode   string
			reason string // "" means the user is asked
		}{
			{"long plan passes the gate", Config{}, 31 * time.Second, longPlan, PlanOn, ""},
			{"gate off", Config{MinOutline: -1}, 31 * time.Second, shortPlan, PlanOn, ""},
			{"cooldown off leaves the gate", Config{Cooldown: cooldown.New(0, 0, nil)}, 0, shortPlan, PlanOn, "outline gate"},
			{"auto plan mode beats the cooldown", Config{}, 0, shortPlan, PlanAuto, ""},
		}
		for _, tc := range tests {
			b, _ := newTestBroker(tc.cfg)
			r := &fakeResponder{}
			p := mustPrompt(t, b, planReq("p1", shortPlan), r)
			mustPress(t, b, tokenOf(t, p, ActionOutline))
			time.Sleep(tc.wait)
			req := planReq("p2", tc.plan)
			req.PlanMode = tc.mode
			if tc.reason != "" {
				autoDenied(t, b, req, r, tc.reason)
				continue
			}
			sub := mustSubmit(t, b, req, r)
			if tc.mode == PlanAuto {
				if !sub.Auto() || sub.Outcome != OutcomeApproved {
					t.Fatalf("%s: %+v", tc.name, sub)
				}
				if _, _, n := b.cool.Check("100"); n != 0 {
					t.Fatalf("%s: auto approval did not reset the cooldown", tc.name)
				}
				continue
			}
			if sub.Auto() {
				t.Fatalf("%s: answered automatically: %+v", tc.name, sub)
			}
		}
	})
}

func TestForgetClearsPlanState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, _ := newTestBroker(Config{})
		r := &fakeResponder{}
		p := mustPrompt(t, b, planReq("p1", shortPlan), r)
		mustPress(t, b, tokenOf(t, p, ActionOutline))
		b.Forget("100")
		mustPrompt(t, b, planReq("p2", shortPlan), r)
		if _, _, n := b.cool.Check("100"); n != 0 {
			t.Fatalf("Forget left cooldown count %d", n)
		}
	})
}
