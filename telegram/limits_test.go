package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// The subscription's usage limit reached: the CLI ends the turn at once.
// The chat gets one message, the notice saying which limit and when it
// resets, not an error on top of it; the progress summary says why the
// turn stopped; /usage shows the status.
func TestUsageLimitReachedNotice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.LimitReached("five_hour", time.Now().Add(2*time.Hour+10*time.Minute))
		})
		id := h.say("hello")
		// The progress message shows the limit too while the turn closes:
		// the notice is the message that says the turn stopped.
		notice := h.awaitText(h.dm.ID, "Claude Code stopped this turn")
		synctest.Wait()
		if notice.ReplyTo != id || !strings.Contains(notice.Text, "⛔ Usage limit reached (5-hour limit) — resets at ") ||
			!strings.Contains(notice.Text, "(in 2 h 10 min)") || !strings.Contains(notice.Source, "<b>") {
			t.Errorf("notice %+v", notice)
		}
		// A turn this quick gets no progress message: the notice is all.
		for _, m := range h.tg.Messages(h.dm.ID) {
			if m.ID != notice.ID && m.ChatID == h.dm.ID && m.ReplyTo == id {
				t.Errorf("a message besides the notice: %q", m.Text)
			}
		}
		h.say("/usage")
		u := h.awaitText(h.dm.ID, "📈 Usage")
		if !strings.Contains(u.Text, "Usage limits: ⛔ Usage limit reached (5-hour limit) — resets at ") || !strings.Contains(u.Text, "reported 0 seconds ago") {
			t.Errorf("/usage: %q", u.Text)
		}
	})
}

// A warning threshold passed is told once per chat for a limit and its
// reset, however many turns report it; a new window is told again.
func TestUsageWarningToldOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		resets := time.Now().Add(50 * time.Hour)
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			r := resets
			if tr.Prompt == "three" {
				r = r.Add(7 * 24 * time.Hour)
			}
			tr.Emit(engine.RateLimited{Status: engine.LimitWarning, Limit: "seven_day", ResetsAt: r, Utilization: 0.8})
			tr.Complete("answer " + tr.Prompt)
		})
		for _, p := range []string{"one", "two", "three"} {
			h.say(p)
			h.awaitText(h.dm.ID, "answer "+p)
		}
		synctest.Wait()
		if n := h.count("80% of your weekly limit used"); n != 2 {
			t.Errorf("%d warnings, want 2 (one per window):\n%s", n, strings.Join(h.messages(h.dm.ID), "\n---\n"))
		}
		if n := h.count("(in 2 days 2 h)"); n != 1 {
			t.Errorf("the first warning does not say when the limit resets")
		}
	})
}

// While Claude waits to call the API again, the progress says so; when the
// call goes through, the line goes.
func TestAPIRetryShownWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.APIRetry{Attempt: 2, MaxRetries: 10, Delay: 3316 * time.Millisecond, HTTPStatus: 429, Error: "rate_limit"})
			<-gate
			tr.Emit(engine.Text{Text: "through"})
			<-gate
			tr.Complete("done")
		})
		id := h.say("go")
		const line = "🔁 The API is rate limited: Claude retries (2 of 10) in 4 seconds"
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id && strings.Contains(m.Text, line) })
		gate <- struct{}{}
		m := h.awaitEdited(prog.ID, "through")
		if strings.Contains(m.Text, "retries") {
			t.Errorf("the retry line stays after the call went through: %q", m.Text)
		}
		close(gate)
		h.awaitText(h.dm.ID, "done")
	})
}

// Compaction shows in the progress: while it runs, then with its figures.
func TestCompactionShown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Compacting{})
			<-gate
			tr.Emit(engine.Compacted{Trigger: "auto", PreTokens: 180_000, PostTokens: 40_000})
			<-gate
			tr.Complete("done")
		})
		id := h.say("go")
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return m.ReplyTo == id && strings.Contains(m.Text, "🗜 Compacting the conversation…")
		})
		gate <- struct{}{}
		h.awaitEdited(prog.ID, "🗜 Context compacted (it was nearly full): 180k → 40k tokens")
		close(gate)
		h.awaitText(h.dm.ID, "done")
	})
}

// The footer says how full the context is from 70% of the model's window.
func TestContextFillInFooter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			used := 100_000
			if tr.Prompt == "full" {
				used = 156_000
			}
			tr.Emit(engine.TurnCompleted{SessionID: tr.Session().SessionID(), OK: true, Outcome: engine.OutcomeDone, Result: "answer " + tr.Prompt,
				NumTurns: 1, Duration: time.Second, ContextTokens: used, ContextWindow: 200_000})
		})
		h.say("light")
		if m := h.awaitText(h.dm.ID, "answer light"); strings.Contains(m.Text, "context") {
			t.Errorf("context shown at 50%%: %q", m.Text)
		}
		h.say("full")
		if m := h.awaitText(h.dm.ID, "answer full"); !strings.Contains(m.Text, " · context 78% full") {
			t.Errorf("footer lacks the context at 78%%: %q", m.Text)
		}
	})
}

// /usage: this chat's and all chats' spend today and this month, and the
// live Claude processes with their age.
func TestUsageCommand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.DailyBudget = 5 })
		for _, p := range []string{"one", "two"} {
			h.say(p)
			h.awaitText(h.dm.ID, "Answer: "+p)
		}
		time.Sleep(5 * time.Minute)
		h.say("/usage")
		u := h.awaitText(h.dm.ID, "📈 Usage")
		for _, want := range []string{
			"This chat: $0.02 today · $0.02 this month",
			"All chats: $0.02 today · $0.02 this month (daily budget $5.00)",
			"Usage limits: no report yet",
			"Claude processes: 1", "• this chat — idle, started 5 minutes ago",
		} {
			if !strings.Contains(u.Text, want) {
				t.Errorf("/usage lacks %q:\n%s", want, u.Text)
			}
		}
	})
}

// A limit reached while the account's extra usage pays on: the turn goes
// on to its answer, and the chat is told once.
func TestUsageLimitWithExtraUsageGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.RateLimited{Status: engine.LimitReached, Limit: "five_hour", ResetsAt: time.Now().Add(time.Hour), UsingOverage: true})
			tr.Complete("answer " + tr.Prompt)
		})
		for _, p := range []string{"one", "two"} {
			h.say(p)
			h.awaitText(h.dm.ID, "answer "+p)
		}
		synctest.Wait()
		if n := h.count("paid for by the account's extra usage"); n != 1 {
			t.Errorf("%d notices of extra usage, want 1", n)
		}
	})
}
