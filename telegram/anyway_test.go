package telegram_test

import (
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A turn stopped at max_turn_usd offers "Run anyway": the press runs that
// prompt once in a process started without the cap, its footer says so,
// the next turn has the cap again (and is stopped again), and the spent
// button and a stranger's press run nothing.
func TestRunAnywayPastTheTurnCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		uncapped := map[*enginetest.Session]bool{}
		var runs []bool // each run of "big": uncapped?
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			mu.Lock()
			free := uncapped[tr.Session()]
			runs = append(runs, free)
			mu.Unlock()
			if !free {
				tr.OverBudget(0.07, 0.09) // what the CLI does at --max-budget-usd
				return
			}
			tr.CompleteCosting("Answer: "+tr.Prompt, 0.2)
		}, func(c *telegram.Config) { c.MaxTurnUSD = 0.07 })
		h.eng.mu.Lock()
		h.eng.wrap = func(spec engine.Spec, s *enginetest.Session) engine.Conn {
			mu.Lock()
			uncapped[s] = spec.Uncapped
			mu.Unlock()
			return s
		}
		h.eng.mu.Unlock()

		h.say("big")
		stopped := h.awaitPrompt(h.dm.ID, "Run anyway", "spending limit reached")

		stranger := tgtest.User{ID: 999002, FirstName: "Eve"}
		if got := h.toast(h.press(stranger, h.dm, stopped, "Run anyway")); got == "Running it past the limit, once" {
			t.Errorf("a stranger's press ran the turn")
		}
		if got := h.toast(h.press(h.user, h.dm, stopped, "Run anyway")); got != "Running it past the limit, once" {
			t.Errorf("toast = %q", got)
		}
		answer := h.awaitText(h.dm.ID, "Answer: big")
		if !strings.Contains(answer.Text, "ran past max_turn_usd") {
			t.Errorf("the footer does not say it ran past the cap: %q", answer.Text)
		}
		if got := h.toast(h.press(h.user, h.dm, stopped, "Run anyway")); !strings.Contains(got, "no longer on offer") {
			t.Errorf("a second press's toast = %q", got)
		}

		h.say("big")
		h.tg.Await(wait, "the next big turn to be stopped again", func() bool {
			return strings.Count(strings.Join(h.messages(h.dm.ID), "\n"), "spending limit reached") == 2
		})
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if want := []bool{false, true, false}; len(runs) != len(want) || runs[0] || !runs[1] || runs[2] {
			t.Errorf("runs of the prompt (uncapped?) = %v, want %v: exactly one past the cap", runs, want)
		}
	})
}

// Today's budget reached, a refused prompt offers "Run anyway": it runs
// once past the budget, said in its footer, and the next prompt is
// refused again.
func TestRunAnywayPastTheDailyBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now() // far from midnight: one day throughout
		time.Sleep(time.Until(time.Date(now.Year(), now.Month(), now.Day()+1, 12, 0, 0, 0, time.Local)))
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.DailyBudget = 0.005 })
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		h.say("two")
		refused := h.awaitPrompt(h.dm.ID, "Run anyway", "Daily budget reached")
		h.press(h.user, h.dm, refused, "Run anyway")
		answer := h.awaitText(h.dm.ID, "Answer: two")
		if !strings.Contains(answer.Text, "ran past the daily budget") {
			t.Errorf("the footer does not say it ran past the budget: %q", answer.Text)
		}
		h.say("three")
		h.tg.Await(wait, "three to be refused", func() bool {
			return strings.Count(strings.Join(h.messages(h.dm.ID), "\n"), "Daily budget reached") == 2
		})
		synctest.Wait()
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "Answer: three") {
				t.Error("the prompt after the run anyway ran past the budget too")
			}
		}
	})
}
