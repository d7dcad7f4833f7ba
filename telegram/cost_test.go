package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// Claude Code reports the session's running total ($0.05, $0.10, $0.15 for
// three turns of $0.05, continuing after a --resume): each footer shows
// $0.05, /status the chat's $0.15 and today's $0.15, and a daily budget of
// $0.12 refuses the fourth turn, not the third.
func TestTurnCostIsTheIncreaseOfTheSessionTotal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			tr.CompleteCosting("Answer: "+tr.Prompt, 0.05)
		}, func(c *telegram.Config) { c.DailyBudget = 0.12 })
		turn := h.awaitTextAfter
		for i, p := range []string{"one", "two", "three"} {
			if i == 2 {
				// A new process resumes the session for the third turn.
				h.say("/model other")
				h.awaitText(h.dm.ID, "It applies from your next message")
			}
			final := turn(p, "Answer: "+p)
			if !strings.Contains(final.Text, "$0.05 ·") {
				t.Errorf("turn %d footer = %q, want a cost of $0.05", i+1, final.Text)
			}
		}
		if st := h.eng.starts(); len(st) != 2 || st[1].Resume == "" || st[1].Resume != h.eng.session(0).SessionID() {
			t.Errorf("starts %+v: the third turn should resume the session", st)
		}
		refusal := turn("four", "Daily budget reached")
		if !strings.Contains(refusal.Text, "Turns cost $0.15 today; [claude] daily_budget_usd allows $0.12 a day.") {
			t.Errorf("refusal = %q", refusal.Text)
		}
		status := turn("/status", "Status")
		for _, want := range []string{"Spent in this chat: $0.15", "Spent today (all chats): $0.15 of $0.12"} {
			if !strings.Contains(status.Text, want) {
				t.Errorf("/status lacks %q:\n%s", want, status.Text)
			}
		}
	})
}

// A turn Claude Code stops at --max-budget-usd ([claude] max_turn_usd) says
// so with its cost, and since the CLI counts that limit per process, every
// turn after one that spent money starts a process of its own (resuming the
// session), so each turn has the whole limit.
func TestTurnStoppedAtSpendingLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			if tr.Prompt == "big" {
				tr.OverBudget(0.07, 0.1081)
				return
			}
			tr.CompleteCosting("Answer: "+tr.Prompt, 0.05)
		}, func(c *telegram.Config) { c.MaxTurnUSD = 0.07 })
		h.say("small")
		h.awaitText(h.dm.ID, "Answer: small")
		stopped := h.awaitTextAfter("big", "Turn stopped: spending limit reached")
		for _, want := range []string{"max_turn_usd ($0.07)", "$0.1081 ·", "send “continue”"} {
			if !strings.Contains(stopped.Text, want) {
				t.Errorf("stop message lacks %q:\n%s", want, stopped.Text)
			}
		}
		if strings.Contains(stopped.Text, "✗ error") {
			t.Errorf("a stop at the limit is shown as an error:\n%s", stopped.Text)
		}
		h.say("next")
		h.awaitText(h.dm.ID, "Answer: next")
		st := h.eng.starts()
		first := h.eng.session(0).SessionID()
		if len(st) != 3 || st[1].Resume != first || st[2].Resume != first {
			t.Errorf("starts %+v: want a new process resuming %s for each turn after a spending one", st, first)
		}
	})
}

// awaitTextAfter sends prompt and waits for the bot's reply to it that
// contains want.
func (h *harness) awaitTextAfter(prompt, want string) tgtest.Message {
	h.t.Helper()
	id := h.say(prompt)
	return h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == id && strings.Contains(m.Text, want)
	})
}
