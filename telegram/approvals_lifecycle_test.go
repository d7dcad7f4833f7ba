package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner"
	"github.com/untether/untether/runner/runnertest"
	"github.com/untether/untether/telegram"
)

// How pending requests end without a press: the timeout, /cancel, /new,
// a bot restart, and the end of their turn.

func TestApprovalTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	h := newHarness(t, oneAsk(toolReq(t, "t1", "Bash", map[string]any{"command": "make slow"})),
		func(c *telegram.Config) { c.ApprovalWait = timeout })
	sent := time.Now()
	h.say("slow")
	prompt := h.awaitPrompt(h.dm.ID, "Approve", "make slow")
	if !strings.Contains(prompt.Text, "Answer within 1 s, or it is denied") {
		t.Errorf("the prompt should say how long it waits:\n%s", prompt.Text)
	}
	edited := h.awaitResolved(h.dm.ID, prompt.ID, "Timed out")
	t.Logf("after the timeout:\n%s", edited.Text)
	if strings.Contains(edited.Text, "Answer within") {
		t.Errorf("the timed-out prompt still asks for an answer: %q", edited.Text)
	}
	a := h.onlyAnswer(0)
	if a.Decision.Allow || !strings.Contains(a.Decision.Message, "did not answer") {
		t.Errorf("answer = %+v, want a deny saying the user did not answer", a)
	}
	if a.At.Sub(sent) < timeout {
		t.Errorf("denied after %v, before the %v timeout", a.At.Sub(sent), timeout)
	}
	h.awaitText(h.dm.ID, "tool denied")
	data, _ := findButton(prompt, "Approve")
	if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "Already answered or expired" {
		t.Errorf("press after the timeout: toast %q", got)
	}
}

func TestApprovalCancelWhilePending(t *testing.T) {
	h := newHarness(t, func(tr *runnertest.Turn) {
		tr.Start("m")
		d := tr.Ask(toolReq(t, "c1", "Bash", map[string]any{"command": "make forever"}))
		if !d.Interrupted {
			<-tr.Interrupted() // the deny arrives first, then the interrupt
		}
		tr.Aborted()
	})
	h.say("go")
	prompt := h.awaitPrompt(h.dm.ID, "Approve", "make forever")
	h.say("/cancel")
	edited := h.awaitResolved(h.dm.ID, prompt.ID, "Cancelled")
	t.Logf("after /cancel:\n%s", edited.Text)
	a := h.onlyAnswer(0)
	if a.RequestID != "c1" || a.Decision.Allow || !strings.Contains(a.Decision.Message, "Cancelled") {
		t.Errorf("answer = %+v, want c1 denied as cancelled", a)
	}
	h.awaitText(h.dm.ID, "⏹ Cancelled")
}

func TestApprovalSessionCloseDeniesPending(t *testing.T) {
	h := newHarness(t, oneAsk(toolReq(t, "n1", "Bash", map[string]any{"command": "make more"})))
	h.say("go")
	prompt := h.awaitPrompt(h.dm.ID, "Approve", "make more")
	h.say("/new")
	h.awaitResolved(h.dm.ID, prompt.ID, "Cancelled")
	if a := h.answersOf(0); len(a) != 1 || a[0].Decision.Allow {
		t.Errorf("answers = %+v, want the pending request denied", a)
	}
}

func TestApprovalStaleAfterRestart(t *testing.T) {
	h := newHarness(t, oneAsk(toolReq(t, "rs", "Bash", map[string]any{"command": "make restart"})))
	h.say("go")
	prompt := h.awaitPrompt(h.dm.ID, "Approve", "make restart")
	data, _ := findButton(prompt, "Approve")
	h.stop()
	// The bot closed the session on the way down: the request was denied
	// and the prompt says so.
	h.awaitResolved(h.dm.ID, prompt.ID, "Cancelled")
	if a := h.answersOf(0); len(a) != 1 || a[0].Decision.Allow {
		t.Errorf("answers = %+v, want the pending request denied at shutdown", a)
	}
	h.start()
	cq := h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)
	if got := h.toast(cq); got != "Already answered or expired" {
		t.Errorf("press after restart: toast %q", got)
	}
	if a := h.answersOf(0); len(a) != 1 {
		t.Errorf("a press after the restart wrote an answer: %+v", a)
	}
}

// No request outlives its turn: when the turn ends without an answer (the
// process crashed, or the CLI withdrew the request and ended the turn), the
// prompt says so and its buttons are dead.
func TestApprovalEndsWithItsTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(tr *runnertest.Turn)
	}{
		{"crash", func(tr *runnertest.Turn) { tr.Crash(2, "segfault") }},
		{"withdrawn", func(tr *runnertest.Turn) {
			tr.Emit(runner.ApprovalCancelled{RequestID: "w1"})
			tr.Aborted()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shown := make(chan struct{})
			h := newHarness(t, func(tr *runnertest.Turn) {
				tr.Start("m")
				tr.Emit(toolReq(t, "w1", "Bash", map[string]any{"command": "make gone"}))
				<-shown
				tc.end(tr)
			})
			h.say("go")
			prompt := h.awaitPrompt(h.dm.ID, "Approve", "make gone")
			close(shown)
			edited := h.awaitResolved(h.dm.ID, prompt.ID, "Cancelled — the turn ended")
			t.Logf("after the turn ended:\n%s", edited.Text)
			data, _ := findButton(prompt, "Approve")
			if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "Already answered or expired" {
				t.Errorf("press after the turn: toast %q", got)
			}
		})
	}
}
