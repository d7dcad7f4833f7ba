package telegram_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
)

// A message sent with Send now that Claude runs on its own (the turn had
// answered) while the daily budget ran out meanwhile: the bot refuses its
// turn as any over the budget, and stops Claude's run of it, so nothing of
// it reaches a later turn; Run anyway then runs it once, afresh.
func TestSteeredRunRefusedByTheBudgetIsStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now() // far from midnight: one day throughout
		time.Sleep(time.Until(time.Date(now.Year(), now.Month(), now.Day()+1, 12, 0, 0, 0, time.Local)))
		step := make(chan struct{})
		var mu sync.Mutex
		var ran, stopped []string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			ran = append(ran, tr.Prompt)
			n := len(ran)
			mu.Unlock()
			if tr.Prompt == "work" {
				<-step
			} else if n == 2 { // Claude's own run of the steered line
				<-tr.Interrupted()
				mu.Lock()
				stopped = append(stopped, tr.Prompt)
				mu.Unlock()
				tr.Aborted()
				return
			}
			tr.Complete("done: " + tr.Prompt)
		}, func(c *telegram.Config) { c.DailyBudget = 0.005 }) // a turn costs $0.01
		sendNow(t, h)
		close(step) // work answers without taking the line: Claude runs it next
		refused := h.awaitPrompt(h.dm.ID, "Run anyway", "Daily budget reached")
		synctest.Wait()
		mu.Lock()
		st := slices.Clone(stopped)
		mu.Unlock()
		if !slices.Equal(st, []string{"also this"}) {
			t.Fatalf("Claude's runs stopped = %q, want its run of the refused message", st)
		}
		h.press(h.user, h.dm, refused, "Run anyway")
		h.awaitText(h.dm.ID, "done: also this")
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(ran)
		mu.Unlock()
		if !slices.Equal(got, []string{"work", "also this", "also this"}) {
			t.Errorf("turns run = %q, want work, the stopped run, the run anyway", got)
		}
		if n := countIn(h, h.dm.ID, "done: also this"); n != 1 {
			t.Errorf("the message was answered %d times", n)
		}
	})
}
