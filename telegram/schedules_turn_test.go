package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A scheduled run is a turn like any other: what it asks waits for a
// press (with the usual timeout), and it answers in its chat.
func TestScheduledRunWaitsForApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "s1", "Bash", map[string]any{"command": "make nightly"})),
			func(c *telegram.Config) { c.ApprovalWait = 10 * time.Minute })
		h.say("/at 1m nightly build")
		h.awaitText(h.dm.ID, "Scheduled")
		time.Sleep(2 * time.Minute)
		origin := h.awaitText(h.dm.ID, "⏰ Once")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make nightly")
		time.Sleep(5 * time.Minute) // the owner is away for a while: it waits
		h.press(h.user, h.dm, prompt, "Approve")
		final := h.awaitText(h.dm.ID, "tool allowed")
		if a := h.onlyAnswer(0); !a.Decision.Allow {
			t.Errorf("answer = %+v, want allowed", a)
		}
		if final.ReplyTo != origin.ID {
			t.Errorf("the answer replies to %d, want the run's first message %d", final.ReplyTo, origin.ID)
		}
	})
}

// A run over the daily budget is refused and says so, like a typed one.
func TestScheduledRunOverBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, func(c *telegram.Config) { c.DailyBudget = 0.005 }) // a turn costs $0.01
		h.say("spend it")
		h.awaitText(h.dm.ID, "Answer: spend it")
		h.say("/at 1m over the budget")
		h.awaitText(h.dm.ID, "Scheduled")
		time.Sleep(2 * time.Minute)
		origin := h.awaitText(h.dm.ID, "⏰ Once")
		refusal := h.awaitText(h.dm.ID, "Daily budget reached")
		if refusal.ReplyTo != origin.ID {
			t.Errorf("the refusal replies to %d, want the run's first message %d", refusal.ReplyTo, origin.ID)
		}
		if got := p.all(); len(got) != 1 {
			t.Errorf("Claude got %q, want only the typed prompt", got)
		}
	})
}

// Only users on the allowlist own schedules: one whose owner was removed
// from it is dropped at start and never runs.
func TestScheduleOfRemovedUserIsDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, longPoll)
		h.say("/every 1h report")
		h.awaitText(h.dm.ID, "Scheduled")
		h.stop()
		h.start(longPoll, func(c *telegram.Config) { c.AllowedUsers = []int64{777} })
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		if got := p.all(); len(got) != 0 {
			t.Errorf("ran for a user no longer allowed: %q", got)
		}
		if all, err := h.store.Schedules(); err != nil || len(all) != 0 {
			t.Errorf("schedules left: %+v %v", all, err)
		}
		if n := h.count("Not run"); n != 0 {
			t.Errorf("%d refusals: the schedule should have gone quietly at start", n)
		}
	})
}

// A one-off /at on a subscription login says nothing about the terms: it
// is a message sent later, not automation.
func TestAtOnSubscriptionSaysNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{billing: engine.BillingSubscription}
		h := newHarness(t, p.run)
		h.say("/at 1m once only")
		h.awaitText(h.dm.ID, "Scheduled")
		time.Sleep(2 * time.Minute)
		h.awaitText(h.dm.ID, "Answer: once only")
		synctest.Wait()
		if n := h.count("subscription"); n != 0 {
			t.Errorf("a one-off run told about the subscription %d times", n)
		}
		// Once the bot knows, /every says so at once.
		h.say("/every 1d daily")
		h.awaitText(h.dm.ID, "Claude subscription login")
		if strings.Count(strings.Join(h.messages(h.dm.ID), "\n"), "Claude subscription login") != 1 {
			t.Error("said more than once")
		}
	})
}

// A schedule set up in a forum topic runs there, in the topic's session,
// and /schedules in another topic does not list it.
func TestScheduleInForumTopic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		f := tgtest.Forum(-100999, "forum")
		h.tg.AddChat(f)
		h.tg.AddTopic(f.ID, 11, "ci")
		h.tg.AddTopic(f.ID, 22, "other")
		h.tg.SendMessage(h.user, f, "/at 1m topic run", tgtest.InThread(11))
		if m := h.awaitText(f.ID, "Scheduled"); m.ThreadID != 11 {
			t.Errorf("confirmation in topic %d", m.ThreadID)
		}
		h.tg.SendMessage(h.user, f, "/schedules", tgtest.InThread(22))
		if m := h.awaitText(f.ID, "No schedules in this chat"); m.ThreadID != 22 {
			t.Errorf("list in topic %d", m.ThreadID)
		}
		time.Sleep(2 * time.Minute)
		origin := h.awaitText(f.ID, "⏰ Once")
		answer := h.awaitText(f.ID, "Answer: topic run")
		if origin.ThreadID != 11 || answer.ThreadID != 11 {
			t.Errorf("the run showed in topics %d and %d, want 11", origin.ThreadID, answer.ThreadID)
		}
		if s := h.eng.starts(); len(s) != 1 || s[0].SessionKey != "-100999:11" {
			t.Errorf("sessions started: %+v", s)
		}
	})
}

// A chat holds at most Schedules.MaxPerChat schedules of users.
func TestScheduleLimitPerChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.Schedules.MaxPerChat = 2 })
		for i, want := range []string{"Scheduled", "Scheduled", "This chat has 2 schedules, the most it may have"} {
			id := h.say("/every 1h report")
			m := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id })
			if !strings.Contains(m.Text, want) {
				t.Errorf("schedule %d: reply %q, want %q", i+1, m.Text, want)
			}
		}
	})
}
