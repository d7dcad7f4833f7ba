package telegram_test

import (
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

func TestDailyBudget(t *testing.T) {
	// Yesterday 23:58 on the bot's clock: behind the fake API's real clock,
	// so no message looks like a backlog, and two minutes from midnight.
	y := time.Now().AddDate(0, 0, -1)
	clock := tgtest.NewManualClock(time.Date(y.Year(), y.Month(), y.Day(), 23, 58, 0, 0, time.Local))
	h := newHarness(t, echoScript, func(c *telegram.Config) {
		c.Now = clock.Now
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

	clock.Advance(3 * time.Minute) // past midnight: a new day
	h.say("four")
	h.awaitText(h.dm.ID, "Answer: four")
}
