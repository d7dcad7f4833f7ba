package telegram_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// The plan-mode flow at the Telegram level: ExitPlanMode prompts, Pause &
// Outline Plan, the progressive cooldown (over the synctest clock), the
// outline gate, and /planmode.

const shortPlan = "# Plan\n\n1. **Write** `result.txt`\n2. Run the tests\n"

// outline is a visible outline long enough for the gate (200 characters).
var outline = "Here is the outline. Step 1: create result.txt in the project root with the build output. " +
	"Step 2: run go test ./... and fix what fails. Step 3: update the README. Risks: the tests are slow, " +
	"and result.txt may already exist."

func exitPlan(t testing.TB, id, plan string) engine.ApprovalRequest {
	return toolReq(t, id, "ExitPlanMode", map[string]any{"plan": plan, "planFilePath": "/home/u/.claude/plans/calm-river.md"})
}

// decisions records what a script was told, in order.
type decisions struct {
	mu   sync.Mutex
	list []enginetest.Decision
}

func (d *decisions) add(x enginetest.Decision) {
	d.mu.Lock()
	d.list = append(d.list, x)
	d.mu.Unlock()
}

func (d *decisions) get() []enginetest.Decision {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]enginetest.Decision(nil), d.list...)
}

// planPrompts counts the plan prompts shown in the private chat.
func planPrompts(h *harness) int {
	n := 0
	for _, m := range h.tg.Messages(h.dm.ID) {
		if strings.Contains(m.Text, "Claude's plan") {
			n++
		}
	}
	return n
}

// planCooldown sets the cooldown windows the tests step over with time.Sleep (the bubble's clock).
func planCooldown(cfg *telegram.Config) {
	cfg.CooldownBase, cfg.CooldownMax = 30*time.Second, 120*time.Second
}

func TestPlanOutlineCooldownApprove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		step := make(chan struct{})
		var got decisions
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Emit(engine.SessionStarted{SessionID: "s", Model: "m", PermissionMode: "plan"})
			got.add(tr.Ask(exitPlan(t, "x1", shortPlan))) // the user pauses it
			got.add(tr.Ask(exitPlan(t, "x2", shortPlan))) // at once: the cooldown answers
			<-step
			got.add(tr.Ask(exitPlan(t, "x3", shortPlan))) // no outline yet: the gate answers
			tr.Emit(engine.Text{Text: outline})
			got.add(tr.Ask(exitPlan(t, "x4", shortPlan))) // the user approves
			tr.Emit(engine.PermissionModeChanged{Mode: "default"})
			<-step
			tr.Complete("plan done")
		}, planCooldown)
		h.say("/planmode on")
		h.awaitText(h.dm.ID, "applies when the session next starts")
		msg := h.say("plan it")
		progress := h.progressFor(h.dm.ID, msg)

		first := h.awaitPrompt(h.dm.ID, "Pause & Outline", "Claude's plan")
		if s := h.eng.starts(); len(s) != 1 || s[0].PermissionMode != "plan" {
			t.Errorf("with /planmode on the session starts in plan mode: %+v", s)
		}
		for _, want := range []string{"<b>Write</b>", "<code>result.txt</code>", "Plan file: <code>/home/u/.claude/plans/calm-river.md</code>"} {
			if !strings.Contains(first.Source, want) {
				t.Errorf("plan prompt lacks %q:\n%s", want, first.Source)
			}
		}
		if rows := buttonTexts(first); len(rows) != 2 || len(rows[0]) != 2 || !strings.Contains(rows[1][0], "Pause & Outline Plan") {
			t.Errorf("plan buttons = %v", rows)
		}
		t.Logf("plan prompt:\n%s\nbuttons: %v", first.Text, buttonTexts(first))

		if got := h.toast(h.press(h.user, h.dm, first, "Pause & Outline")); got != "Outlining plan…" {
			t.Errorf("toast = %q", got)
		}
		paused := h.awaitResolved(h.dm.ID, first.ID, "Outline requested by @ada")
		t.Logf("after Pause & Outline:\n%s", paused.Text)

		// The immediate retry is denied without asking, and the chat is told.
		notice := h.awaitText(h.dm.ID, "plan cooldown")
		if notice.ReplyTo != progress.ID || len(notice.Keyboard) != 0 {
			t.Errorf("the notice should reply to the progress message without buttons: %+v", notice)
		}
		if !strings.Contains(notice.Text, "wait about 30 seconds") {
			t.Errorf("the first window is 30 s: %q", notice.Text)
		}
		t.Logf("cooldown notice:\n%s", notice.Text)

		time.Sleep(31 * time.Second)
		step <- struct{}{}
		gate := h.awaitText(h.dm.ID, "outline gate")
		t.Logf("outline gate notice:\n%s", gate.Text)

		second := h.awaitPrompt(h.dm.ID, "Approve", "Claude's plan")
		if second.ID == first.ID {
			t.Fatal("the outlined plan should be a new prompt")
		}
		if got := h.toast(h.press(h.user, h.dm, second, "Approve")); got != "Approved" {
			t.Errorf("toast = %q", got)
		}
		h.awaitResolved(h.dm.ID, second.ID, "Approved by @ada")
		// The CLI leaves plan mode after the approval: the footer shows it.
		h.tg.Await(wait, "the progress footer to show the new mode", func() bool {
			m, _ := h.tg.Message(h.dm.ID, progress.ID)
			return strings.Contains(m.Text, "m · default")
		})
		step <- struct{}{}
		h.awaitText(h.dm.ID, "plan done")

		d := got.get()
		if len(d) != 4 {
			t.Fatalf("decisions = %+v", d)
		}
		// The gate counts the plan itself when nothing was written since the pause.
		gateSays := fmt.Sprintf("only %d characters", utf8.RuneCountInString(strings.TrimSpace(shortPlan)))
		for i, want := range []string{"visible step-by-step outline", "Plan approval is paused", gateSays} {
			if d[i].Allow || !strings.Contains(d[i].Message, want) {
				t.Errorf("decision %d = %+v, want a deny saying %q", i+1, d[i], want)
			}
		}
		if !d[3].Allow {
			t.Errorf("the approved plan was not allowed: %+v", d[3])
		}
		// Only two prompts were shown; the other two were answered by the rules.
		if n := planPrompts(h); n != 2 {
			t.Errorf("%d plan prompts shown, want 2", n)
		}
	})
}

// The cooldown grows with each pause, survives a process restart (resume),
// and an explicit Deny resets it.
func TestPlanCooldownProgressiveResumeAndDeny(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		step := make(chan struct{})
		var got decisions
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "plan" {
				got.add(tr.Ask(exitPlan(t, "a1", shortPlan))) // paused: 30 s
				tr.Complete("first turn")
				return
			}
			got.add(tr.Ask(exitPlan(t, "b1", shortPlan))) // new process, still cooling down
			<-step                                        // +31 s
			tr.Emit(engine.Text{Text: outline})
			got.add(tr.Ask(exitPlan(t, "b2", shortPlan))) // paused again: 60 s
			<-step                                        // +31 s
			got.add(tr.Ask(exitPlan(t, "b3", shortPlan))) // still inside 60 s
			<-step                                        // +30 s
			tr.Emit(engine.Text{Text: outline})
			got.add(tr.Ask(exitPlan(t, "b4", shortPlan))) // denied by the user
			got.add(tr.Ask(exitPlan(t, "b5", shortPlan))) // asked again at once: shown
			tr.Complete("second turn")
		}, planCooldown)
		h.say("/planmode on")
		h.say("plan")
		h.toast(h.press(h.user, h.dm, h.awaitPrompt(h.dm.ID, "Pause & Outline", "Claude's plan"), "Pause & Outline"))
		h.awaitText(h.dm.ID, "first turn")
		// A model change restarts the process before the next turn (resuming).
		h.say("/model claude-other")
		h.awaitText(h.dm.ID, "It applies from your next message")
		h.say("go on")
		h.tg.Await(wait, "the resumed turn's cooldown notice", func() bool { return countText(h, "plan cooldown") == 1 })
		if s := h.eng.starts(); len(s) != 2 || s[1].Resume == "" {
			t.Fatalf("the second turn should run in a new, resumed process: %+v", s)
		}
		time.Sleep(31 * time.Second)
		step <- struct{}{}
		second := h.awaitPrompt(h.dm.ID, "Pause & Outline", "Claude's plan")
		h.toast(h.press(h.user, h.dm, second, "Pause & Outline"))
		h.awaitResolved(h.dm.ID, second.ID, "Outline requested")
		time.Sleep(31 * time.Second)
		step <- struct{}{}
		h.tg.Await(wait, "the second window's notice", func() bool { return countText(h, "plan cooldown") == 2 })
		if !strings.Contains(lastWith(h, "plan cooldown"), "wait about 29 seconds") {
			t.Errorf("the second window is 60 s, 29 s left: %q", lastWith(h, "plan cooldown"))
		}
		time.Sleep(30 * time.Second)
		step <- struct{}{}
		third := h.awaitPrompt(h.dm.ID, "Pause & Outline", "Claude's plan")
		h.toast(h.press(h.user, h.dm, third, "Deny"))
		h.awaitResolved(h.dm.ID, third.ID, "Denied by @ada")
		// The explicit Deny ended the flow: the next plan is shown at once.
		fourth := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			_, ok := findButton(m, "Approve")
			return ok && m.ID > third.ID && strings.Contains(m.Text, "Claude's plan")
		})
		h.toast(h.press(h.user, h.dm, fourth, "Approve"))
		h.awaitText(h.dm.ID, "second turn")

		d := got.get()
		wants := []string{"visible step-by-step outline", "Plan approval is paused", "visible step-by-step outline",
			"Plan approval is paused", "rejected this plan", ""}
		if len(d) != len(wants) {
			t.Fatalf("decisions = %+v", d)
		}
		for i, want := range wants {
			if want == "" {
				if !d[i].Allow {
					t.Errorf("decision %d = %+v, want allow", i+1, d[i])
				}
				continue
			}
			if d[i].Allow || !strings.Contains(d[i].Message, want) {
				t.Errorf("decision %d = %+v, want a deny saying %q", i+1, d[i], want)
			}
		}
	})
}

func countText(h *harness, s string) int {
	n := 0
	for _, m := range h.tg.Messages(h.dm.ID) {
		if strings.Contains(m.Text, s) {
			n++
		}
	}
	return n
}

func lastWith(h *harness, s string) string {
	last := ""
	for _, m := range h.tg.Messages(h.dm.ID) {
		if strings.Contains(m.Text, s) {
			last = m.Text
		}
	}
	return last
}

func TestPlanModeCommandLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got decisions
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "exit" {
				got.add(tr.Ask(exitPlan(t, "auto1", shortPlan)))
			}
			tr.Complete("ok " + tr.Prompt)
		})
		h.say("hello")
		h.awaitText(h.dm.ID, "ok hello")
		sess := h.eng.session(0)
		for _, tc := range []struct{ arg, mode, reply string }{
			{"on", "plan", "Plan mode: on (chat setting). Applied to the running session."},
			{"off", "default", "Plan mode: off (chat setting). Applied to the running session."},
			{"auto", "plan", "Plan mode: auto (chat setting). Applied to the running session."},
		} {
			h.say("/planmode " + tc.arg)
			h.awaitText(h.dm.ID, tc.reply)
			if m := sess.Mode(); m != tc.mode {
				t.Errorf("/planmode %s: the running session is in mode %q, want %q", tc.arg, m, tc.mode)
			}
		}
		h.say("/planmode show")
		h.awaitText(h.dm.ID, "Plan mode: auto (chat setting).")
		// auto: ExitPlanMode is approved without a prompt.
		h.say("exit")
		h.awaitText(h.dm.ID, "ok exit")
		if d := got.get(); len(d) != 1 || !d[0].Allow {
			t.Errorf("auto plan mode should allow ExitPlanMode: %+v", d)
		}
		if countText(h, "Claude's plan") != 0 {
			t.Error("auto plan mode showed a plan prompt")
		}
		h.say("/planmode clear")
		h.awaitText(h.dm.ID, "Plan mode: off (config). Applied to the running session.")
		if m := sess.Mode(); m != "default" {
			t.Errorf("after clear the session is in mode %q", m)
		}
		h.say("/planmode sideways")
		h.awaitText(h.dm.ID, "Usage: /planmode on | off | auto | show | clear")
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("switching plan mode live must not restart claude: %d starts", n)
		}
	})
}

func TestPlanLongIsSplit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b strings.Builder
		b.WriteString("# A long plan\n\n")
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(&b, "%d. Change module %d: move the handler into its own file and add a test for the error path.\n", i, i)
		}
		plan := b.String()
		h := newHarness(t, oneAsk(exitPlan(t, "long", plan)))
		h.say("/planmode on")
		msg := h.say("plan big")
		progress := h.progressFor(h.dm.ID, msg)
		last := h.awaitPrompt(h.dm.ID, "Approve", "Change module 60")
		var parts []tgtest.Message
		for _, m := range h.tg.Messages(h.dm.ID) {
			if m.ID > progress.ID && m.ID <= last.ID && strings.Contains(m.Text, "Change module") {
				parts = append(parts, m)
			}
		}
		if len(parts) < 2 {
			t.Fatalf("a %d-character plan should take several messages, got %d", len(plan), len(parts))
		}
		for i, m := range parts {
			if tgtest.UTF16Len(m.Text) > tgtest.MaxTextLen {
				t.Errorf("part %d is too long: %d", i, tgtest.UTF16Len(m.Text))
			}
			if i < len(parts)-1 && len(m.Keyboard) != 0 {
				t.Errorf("only the last part carries the buttons; part %d has %v", i, buttonTexts(m))
			}
			want := progress.ID
			if i > 0 {
				want = parts[i-1].ID
			}
			if m.ReplyTo != want {
				t.Errorf("part %d replies to %d, want %d (the parts form a thread under the progress message)", i, m.ReplyTo, want)
			}
		}
		if !strings.Contains(parts[0].Text, "Claude's plan") || !strings.Contains(parts[0].Text, "1. Change module 1:") {
			t.Errorf("first part: %.200q", parts[0].Text)
		}
		h.toast(h.press(h.user, h.dm, last, "Approve"))
		h.awaitResolved(h.dm.ID, last.ID, "Approved by @ada")
		h.awaitText(h.dm.ID, "tool allowed")
	})
}

// TestPlanCooldownSurvivesBotRestart: the cooldown is stored, so a bot
// restart does not give a model that keeps coming back a fresh start.
func TestPlanCooldownSurvivesBotRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got decisions
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Emit(engine.SessionStarted{SessionID: "s", Model: "m", PermissionMode: "plan"})
			got.add(tr.Ask(exitPlan(t, fmt.Sprintf("x%d", len(got.get())), shortPlan)))
			tr.Complete("turn over")
		}, planCooldown)
		h.say("plan it")
		first := h.awaitPrompt(h.dm.ID, "Pause & Outline", "Claude's plan")
		h.toast(h.press(h.user, h.dm, first, "Pause & Outline"))
		h.awaitText(h.dm.ID, "turn over")
		h.stop()

		time.Sleep(10 * time.Second) // inside the 30 s window
		h.start(planCooldown)
		h.say("plan it again")
		h.awaitText(h.dm.ID, "plan cooldown")
		d := got.get()
		if len(d) != 2 || d[1].Allow || !strings.Contains(d[1].Message, "Plan approval is paused") {
			t.Fatalf("decisions = %+v, want the second plan denied by the cooldown", d)
		}
		if n := planPrompts(h); n != 1 {
			t.Errorf("%d plan prompts shown, want 1 (the restart must not reopen the question)", n)
		}
	})
}
