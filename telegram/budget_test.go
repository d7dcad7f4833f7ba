package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/telegram"
)

func TestDailyBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two minutes before the bot's next local midnight.
		now := time.Now()
		midnight := time.Date(now.Year(), now.Month(), now.Day()+1, 0, 0, 0, 0, time.Local)
		time.Sleep(time.Until(midnight.Add(-2 * time.Minute)))
		h := newHarness(t, echoScript, func(c *telegram.Config) {
			c.DailyBudget = 0.015 // each scripted turn costs $0.01
		})
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		h.say("two") // $0.01 spent: still under
		h.awaitText(h.dm.ID, "Answer: two")
		h.say("three")
		m := h.awaitText(h.dm.ID, "Daily budget reached")
		if !strings.Contains(m.Text, "Turns cost $0.02 today; [claude] daily_budget_usd allows $0.0150 a day") {
			t.Errorf("refusal = %q", m.Text)
		}
		for _, txt := range h.messages(h.dm.ID) {
			if strings.Contains(txt, "Answer: three") {
				t.Error("the turn over budget ran")
			}
		}
		h.say("/status")
		h.awaitText(h.dm.ID, "Spent today (all chats): $0.02 of $0.0150")

		time.Sleep(3 * time.Minute) // past midnight: a new day
		h.say("four")
		h.awaitText(h.dm.ID, "Answer: four")
	})
}
