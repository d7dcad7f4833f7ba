package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
)

// How pending requests end without a press: the timeout, /cancel, /new,
// a bot restart, and the end of their turn.

func TestApprovalTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 300 * time.Millisecond
		h := newHarness(t, oneAsk(toolReq(t, "t1", "Bash", map[string]any{"command": "make slow"})),
			func(c *telegram.Config) { c.ApprovalWait = timeout })
		sent := time.Now()
		h.say("slow")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make slow")
		if !strings.Contains(prompt.Text, "Answer within 1 second, or it is denied") {
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
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "This request is no longer pending" {
			t.Errorf("press after the timeout: toast %q", got)
		}
	})
}

func TestApprovalCancelWhilePending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
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
	})
}

func TestApprovalSessionCloseDeniesPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "n1", "Bash", map[string]any{"command": "make more"})))
		h.say("go")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make more")
		h.say("/new")
		h.awaitResolved(h.dm.ID, prompt.ID, "Cancelled")
		if a := h.answersOf(0); len(a) != 1 || a[0].Decision.Allow {
			t.Errorf("answers = %+v, want the pending request denied", a)
		}
	})
}

func TestApprovalStaleAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
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
		if got := h.toast(cq); got != "This request is no longer pending" {
			t.Errorf("press after restart: toast %q", got)
		}
		if a := h.answersOf(0); len(a) != 1 {
			t.Errorf("a press after the restart wrote an answer: %+v", a)
		}
	})
}

// No request outlives its turn: when the turn ends without an answer (the
// process crashed, or the CLI withdrew the request and ended the turn), the
// prompt says so and its buttons are dead.
func TestApprovalEndsWithItsTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(tr *enginetest.Turn)
		want string
	}{
		{"crash", func(tr *enginetest.Turn) { tr.Crash(2, "segfault") }, "Cancelled — the turn ended"},
		{"withdrawn", func(tr *enginetest.Turn) {
			tr.Emit(engine.ApprovalCancelled{RequestID: "w1"})
			tr.Aborted()
		}, "Withdrawn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				shown := make(chan struct{})
				h := newHarness(t, func(tr *enginetest.Turn) {
					tr.Start("m")
					tr.Emit(toolReq(t, "w1", "Bash", map[string]any{"command": "make gone"}))
					<-shown
					tc.end(tr)
				})
				h.say("go")
				prompt := h.awaitPrompt(h.dm.ID, "Approve", "make gone")
				close(shown)
				edited := h.awaitResolved(h.dm.ID, prompt.ID, tc.want)
				t.Logf("after the turn ended:\n%s", edited.Text)
				data, _ := findButton(prompt, "Approve")
				if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "This request is no longer pending" {
					t.Errorf("press after the turn: toast %q", got)
				}
			})
		})
	}
}

// TestApprovalWithdrawnLosesButtons: when Claude takes a request back
// while its turn goes on, the prompt says so and loses its buttons at once,
// a press on them reaches nobody, and the progress stops saying it waits.
func TestApprovalWithdrawnLosesButtons(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		withdraw, checked := make(chan struct{}), make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "toolu_w1", Tool: "Bash", Kind: "command", Title: "make gone"})
			go func() {
				<-withdraw
				tr.Withdraw("w1")
			}()
			d := tr.Ask(toolReq(t, "w1", "Bash", map[string]any{"command": "make gone"}))
			// Like the CLI: the withdrawn tool fails, the turn goes on.
			tr.Emit(engine.ActionCompleted{ToolUseID: "toolu_w1", OK: false, Detail: "withdrawn"})
			<-checked
			tr.Complete("tool " + decisionWord(d))
		})
		msg := h.say("go")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make gone")
		progress := h.progressFor(h.dm.ID, msg)
		h.tg.Await(wait, "the progress to say it waits for approval", func() bool {
			m, _ := h.tg.Message(h.dm.ID, progress.ID)
			return strings.Contains(m.Text, "waiting for approval")
		})
		close(withdraw)
		edited := h.awaitResolved(h.dm.ID, prompt.ID, "Withdrawn")
		t.Logf("withdrawn:\n%s", edited.Text)
		if !strings.Contains(edited.Text, "make gone") || strings.Contains(edited.Text, "Answer within") {
			t.Errorf("the withdrawn prompt should keep what was asked and drop the deadline:\n%s", edited.Text)
		}
		// The turn is still running: its progress no longer waits.
		h.tg.Await(wait, "the progress to stop waiting for approval", func() bool {
			m, _ := h.tg.Message(h.dm.ID, progress.ID)
			return !strings.Contains(m.Text, "waiting for approval") && strings.Contains(m.Text, "working")
		})
		data, _ := findButton(prompt, "Approve")
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "This request is no longer pending" {
			t.Errorf("press on the withdrawn prompt: toast %q", got)
		}
		close(checked)
		h.awaitText(h.dm.ID, "tool withdrawn")
		s := h.eng.session(0)
		if a, stray := s.Answers(), s.Stray(); len(a) != 0 || len(stray) != 0 {
			t.Errorf("something was written to claude for a withdrawn request: answers %+v, refused %+v", a, stray)
		}
	})
}
