package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/triggers"
)

var berlin = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return loc
}()

func inBerlin(c *telegram.Config) {
	c.Schedules.Location = berlin
	longPoll(c)
}

// longPoll holds each long poll for an hour: these tests sleep through
// hours and days, and a poll every (bubble) second would make them slow
// for real.
func longPoll(c *telegram.Config) { c.PollTimeout = time.Hour }

// prompts is a script that answers like echoScript and remembers what
// Claude was given; hold, when set, keeps a turn running until closed.
type prompts struct {
	mu      sync.Mutex
	got     []string
	hold    chan struct{}
	billing engine.Billing // how the init says Claude pays
}

func (p *prompts) run(t *enginetest.Turn) {
	p.mu.Lock()
	p.got = append(p.got, t.Prompt)
	hold, billing := p.hold, p.billing
	p.mu.Unlock()
	t.Emit(engine.SessionStarted{SessionID: t.Session().SessionID(), Model: "fake-model", Billing: billing})
	if hold != nil && strings.Contains(t.Prompt, "hold") {
		<-hold
	}
	t.Complete("**Answer:** " + t.Prompt)
}

func (p *prompts) all() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.got...)
}

func TestAtRunsOnceLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, inBerlin)
		h.say("/at 30m check the build")
		m := h.awaitText(h.dm.ID, "Scheduled for Sat 1 Jan 01:30 Europe/Berlin (in 30 min):\ncheck the build")
		if !strings.Contains(m.Text, "/schedules") {
			t.Errorf("confirmation = %q, want the zone and the wait", m.Text)
		}
		time.Sleep(29 * time.Minute)
		synctest.Wait()
		if len(p.all()) != 0 {
			t.Fatalf("ran early: %q", p.all())
		}
		time.Sleep(2 * time.Minute)
		origin := h.awaitText(h.dm.ID, "⏰ Once,")
		if !strings.Contains(origin.Text, "check the build") || strings.Contains(origin.Text, "Late") {
			t.Errorf("first message = %q", origin.Text)
		}
		answer := h.awaitText(h.dm.ID, "Answer: check the build")
		if answer.ReplyTo != origin.ID {
			t.Errorf("the answer replies to %d, want the run's first message %d", answer.ReplyTo, origin.ID)
		}
		time.Sleep(2 * time.Hour)
		synctest.Wait()
		if got := p.all(); len(got) != 1 {
			t.Errorf("a one-off ran %d times: %q", len(got), got)
		}
		h.say("/schedules")
		h.awaitText(h.dm.ID, "No schedules in this chat")
	})
}

func TestEveryCronListAndRemove(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, inBerlin)
		// The bubble starts on Saturday 1 January 2000, 01:00 in Berlin.
		h.say(`/every "0 9 * * 1-5" summarise CI`)
		m := h.awaitText(h.dm.ID, "Scheduled: Every weekday 09:00 Europe/Berlin")
		if !strings.Contains(m.Text, "Next run: Mon 3 Jan 09:00 Europe/Berlin") {
			t.Errorf("confirmation = %q", m.Text)
		}
		h.say("/every 6h check deps")
		h.awaitText(h.dm.ID, "Scheduled: Every 6 hours")
		h.say("/schedules")
		list := h.awaitText(h.dm.ID, "Schedules of this chat")
		if i, j := strings.Index(list.Text, "check deps"), strings.Index(list.Text, "summarise CI"); i < 0 || j < 0 || i > j {
			t.Errorf("list (soonest first) = %q", list.Text)
		}
		if len(list.Keyboard) != 1 || len(list.Keyboard[0]) != 2 {
			t.Fatalf("buttons = %v, want ✖ 1 and ✖ 2", list.Keyboard)
		}
		if got := h.toast(h.press(h.user, h.dm, list, "✖ 2")); got != "Schedule removed." {
			t.Errorf("toast = %q", got)
		}
		// The list now shows what is left, with one button.
		h.tg.Await(wait, "the list edited to what is left", func() bool {
			m, _ := h.tg.Message(h.dm.ID, list.ID)
			return strings.Contains(m.Text, "check deps") && !strings.Contains(m.Text, "summarise CI") &&
				len(m.Keyboard) == 1 && len(m.Keyboard[0]) == 1
		})
		// The same button again: gone.
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, list.ID, list.Keyboard[0][1].CallbackData)); got != "That schedule is no longer there." {
			t.Errorf("second press: toast = %q", got)
		}
		time.Sleep(2*24*time.Hour + time.Hour) // past Monday 09:00 Berlin
		synctest.Wait()
		got := p.all()
		if len(got) != 8 { // every 6h for two days
			t.Errorf("ran %d times in two days, want 8", len(got))
		}
		for _, g := range got {
			if g != "check deps" {
				t.Errorf("a removed schedule ran: %q", g)
			}
		}
	})
}

func TestScheduledRunWaitsBehindATurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{hold: make(chan struct{})}
		h := newHarness(t, p.run, func(c *telegram.Config) { c.Schedules.Location = time.UTC })
		h.say("/at 1m scheduled one")
		h.awaitText(h.dm.ID, "Scheduled")
		h.say("hold on")
		h.awaitText(h.dm.ID, "working")
		time.Sleep(2 * time.Minute)
		h.awaitText(h.dm.ID, "Once, Sat 1 Jan 00:01 UTC: its run waits for the current turn (1 ahead)")
		if got := p.all(); len(got) != 1 {
			t.Fatalf("the scheduled run did not wait: %q", got)
		}
		close(p.hold)
		h.awaitText(h.dm.ID, "Answer: scheduled one")
	})
}

func TestMissedRunsOnceLateAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, inBerlin)
		h.say("/every 1h hourly")
		h.awaitText(h.dm.ID, "Scheduled")
		h.stop()
		time.Sleep(5*time.Hour + 30*time.Minute) // five runs missed
		h.start(inBerlin)
		origin := h.awaitText(h.dm.ID, "⏰ Every hour")
		if !strings.Contains(origin.Text, "Late: it was due") {
			t.Errorf("catch-up run not marked late: %q", origin.Text)
		}
		h.awaitText(h.dm.ID, "Answer: hourly")
		time.Sleep(20 * time.Minute) // the phase holds: the next run is at 6h, not 6h30m+1h
		synctest.Wait()
		if got := len(p.all()); got != 1 {
			t.Fatalf("%d runs after the restart, want 1 catch-up", got)
		}
		time.Sleep(15 * time.Minute)
		synctest.Wait()
		if got := len(p.all()); got != 2 {
			t.Fatalf("%d runs, want the catch-up and the next on time", got)
		}
		if n := h.count("Late"); n != 1 {
			t.Errorf("%d runs marked late, want 1", n)
		}
	})
}

func TestScheduleInputErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, inBerlin)
		cases := []struct{ cmd, want string }{
			{"/at soon look", "I could not read the time <code>soon</code>"},
			{"/at 2h", "What should Claude do then?"},
			{"/at 1999-12-31 08:00 look", "has already passed"},
			{"/every often look", "I could not read the repeat"},
			{"/every 30s look", "repeats too often"},
			{`/every "0 9 * *" look`, "cron expression of five fields"},
			{"/every 6h", "What should Claude do then?"},
		}
		for _, c := range cases {
			id := h.say(c.cmd)
			m := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id })
			if !strings.Contains(m.Source, c.want) || !strings.Contains(m.Text, "For example:") {
				t.Errorf("%s: reply %q, want %q and an example", c.cmd, m.Source, c.want)
			}
		}
	})
}

// fakeHooks stands in for the trigger server: the test fires directly.
type fakeHooks struct{ fire chan triggers.Fire }

func (f *fakeHooks) Serve(ctx context.Context, fire triggers.Fire) error {
	f.fire <- fire
	<-ctx.Done()
	return nil
}

func TestTriggerRunQuotesItsBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{hold: make(chan struct{})}
		hooks := &fakeHooks{fire: make(chan triggers.Fire, 1)}
		h := newHarness(t, p.run, func(c *telegram.Config) { c.Hooks = hooks })
		h.tg.AddChat(h.dm) // the owner started the bot once, long ago
		fire := <-hooks.fire
		hook := triggers.Hook{Name: "ci", ChatID: h.dm.ID, Prompt: "CI reported this; find the cause:\n{{body}}"}
		first := triggers.Delivery{ID: "ci 1", At: time.Now(), Body: []byte("/new <b>build</b> failed")}
		if err := fire(t.Context(), hook, first); err != nil {
			t.Fatal(err)
		}
		m := h.awaitText(h.dm.ID, "🪝 ci")
		if !strings.Contains(m.Text, "/new <b>build</b> failed") || !strings.Contains(m.Source, "&lt;b&gt;") {
			t.Errorf("first message = %q (source %q), want the body shown as text", m.Text, m.Source)
		}
		h.awaitText(h.dm.ID, "Answer: CI reported this")
		got := p.all()
		if len(got) != 1 || !strings.Contains(got[0], "untrusted") || !strings.HasPrefix(got[0], "CI reported this") {
			t.Fatalf("prompt = %q", got)
		}
		if h.count("fresh") != 0 {
			t.Error("the body ran as a bot command")
		}

		// The same delivery again runs nothing.
		if err := fire(t.Context(), hook, first); !errors.Is(err, triggers.ErrDuplicate) {
			t.Fatalf("a repeat: err = %v, want ErrDuplicate", err)
		}

		// One turn runs (held), three wait; the next trigger is refused,
		// and not remembered: sent again once there is room, it runs.
		hook.Prompt = "hold {{body}}"
		delivery := func(i int) triggers.Delivery {
			return triggers.Delivery{ID: fmt.Sprint("ci x", i), At: time.Now(), Body: []byte("x")}
		}
		for i := range 4 {
			if err := fire(t.Context(), hook, delivery(i)); err != nil {
				t.Fatalf("trigger %d: %v", i, err)
			}
			synctest.Wait()
		}
		if err := fire(t.Context(), hook, delivery(4)); !errors.Is(err, triggers.ErrBusy) {
			t.Fatalf("fifth trigger: err = %v, want ErrBusy", err)
		}
		close(p.hold)
		synctest.Wait()
		if err := fire(t.Context(), hook, delivery(4)); err != nil {
			t.Fatalf("fifth trigger sent again: %v", err)
		}
		synctest.Wait()
		if got := len(p.all()); got != 6 {
			t.Errorf("%d runs, want 6", got)
		}
	})
}

func TestConfigScheduleNeedsAnAllowedChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		group := tgtest.Group(-100777, "ops")
		every := telegram.ScheduleEntry{ID: "c:1", ChatID: group.ID, Rule: schedule.Rule{Every: time.Hour}, Prompt: "ops report"}
		dm := telegram.ScheduleEntry{ID: "c:2", ChatID: 4242, Rule: schedule.Rule{Every: time.Hour}, Prompt: "my report"}
		h := newHarnessPre(t, p.run, func(tg *tgtest.Server) { tg.AddChat(group); tg.AddChat(tgtest.PrivateChat(tgtest.User{ID: 4242})) },
			func(c *telegram.Config) { c.Schedules.Entries = []telegram.ScheduleEntry{every, dm} }, longPoll)
		time.Sleep(time.Hour + time.Minute)
		h.awaitText(h.dm.ID, "Answer: my report")
		h.awaitText(group.ID, "Not run: this chat is no longer allowed")
		if got := p.all(); len(got) != 1 {
			t.Errorf("runs = %q, want only the private chat's", got)
		}
	})
}

func TestSubscriptionNoteOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{billing: engine.BillingSubscription}
		h := newHarness(t, p.run, longPoll)
		h.say("/every 1h report")
		h.awaitText(h.dm.ID, "Scheduled")
		if h.count("subscription") != 0 {
			t.Error("told before the CLI said how it pays")
		}
		time.Sleep(3*time.Hour + time.Minute)
		synctest.Wait()
		if n := h.count("Claude subscription login"); n != 1 {
			t.Errorf("subscription note said %d times, want once", n)
		}
		h.say("plain prompt")
		h.awaitText(h.dm.ID, "Answer: plain prompt")
		if n := h.count("Claude subscription login"); n != 1 {
			t.Errorf("subscription note said %d times, want once", n)
		}
	})
}

// A cron schedule runs at its time in the configured zone, weekdays only.
func TestCronRunsOnWeekdaysInZone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{}
		h := newHarness(t, p.run, inBerlin)
		start := time.Now() // Saturday 1 January 2000, 00:00 UTC
		h.say(`/every "0 9 * * 1-5" weekday report`)
		h.awaitText(h.dm.ID, "Scheduled: Every weekday 09:00 Europe/Berlin")
		// Monday 3 January, 09:00 Berlin is 08:00 UTC: nothing before it.
		monday := start.Add(2*24*time.Hour + 8*time.Hour)
		time.Sleep(time.Until(monday) - time.Minute)
		synctest.Wait()
		if got := p.all(); len(got) != 0 {
			t.Fatalf("ran before Monday 09:00 Berlin (over the weekend?): %q", got)
		}
		time.Sleep(2 * time.Minute)
		m := h.awaitText(h.dm.ID, "⏰ Every weekday 09:00 Europe/Berlin — weekday report")
		if strings.Contains(m.Text, "Late") {
			t.Errorf("an on-time run marked late: %q", m.Text)
		}
		time.Sleep(24 * time.Hour) // Tuesday
		synctest.Wait()
		if got := p.all(); len(got) != 2 {
			t.Errorf("%d runs by Tuesday 09:01, want 2", len(got))
		}
	})
}

// Behind a long turn a schedule does not pile up runs: one waits, the
// times that pass meanwhile are skipped.
func TestScheduleDoesNotPileUpBehindALongTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &prompts{hold: make(chan struct{})}
		h := newHarness(t, p.run, longPoll)
		h.say("/every 1h report")
		h.awaitText(h.dm.ID, "Scheduled")
		h.say("hold on")
		h.awaitText(h.dm.ID, "working")
		time.Sleep(5*time.Hour + 30*time.Minute) // five due times pass
		synctest.Wait()
		if n := h.count("its run waits for the current turn"); n != 1 {
			t.Errorf("%d runs queued behind the turn, want 1", n)
		}
		close(p.hold)
		h.awaitText(h.dm.ID, "Answer: report")
		synctest.Wait()
		if got := p.all(); len(got) != 2 {
			t.Errorf("Claude got %q, want the held prompt and one scheduled run", got)
		}
	})
}
