package runner

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"

	"github.com/untether/untether/runner/claudetest"
)

// Usage limits, API retries, compaction and the context window, as the
// real CLI reports them (docs/protocol.md, "Limits, retries and the
// context").

// subscribe makes the rig's CLI a claude.ai subscriber (an OAuth token, no
// API key), run without API billing as the bot runs it: only then does the
// CLI read the usage-limit headers.
func (r *rig) subscribe() *rig {
	r.opts.Env, r.home = claudetest.SubscriptionEnv(r.t, r.api.URL())
	r.opts.UseAPIBilling = false
	return r
}

// A subscription's limit reached: one rate_limit_event "rejected" naming
// the limit and its reset, then the turn ends at once (no retry) with
// api_error usage_limit_reached. The process stays usable, and the next
// call that goes through brings a rate_limit_event "allowed".
func TestContractUsageLimitReached(t *testing.T) {
	resets := time.Now().Add(2*time.Hour + 10*time.Minute).Truncate(time.Second)
	r := newRig(t, true).serve(claudetest.LimitReached("five_hour", resets).Times(1), claudetest.Say("back")).subscribe()
	s := r.start()
	log := turn(t, s, "hello", nil)
	limits := eventsOf[engine.RateLimited](log.events)
	if len(limits) != 1 {
		t.Fatalf("want one RateLimited:%s", log)
	}
	l := limits[0]
	t.Logf("rate_limit_event: %s", l.Raw)
	if l.Status != engine.LimitReached || l.Limit != "five_hour" || !l.ResetsAt.Equal(resets) {
		t.Errorf("RateLimited = %+v, want rejected five_hour resetting at %v", l, resets)
	}
	tc := log.done
	t.Logf("result: ok=%v outcome=%s reason=%q text=%q", tc.OK, tc.Outcome, tc.Reason, tc.ErrorText)
	if tc.OK || tc.Outcome != engine.OutcomeUsageLimit || !saidReason(tc, "usage_limit_reached") || !saidReason(tc, "api_error") || !strings.Contains(tc.ErrorText, "limit") {
		t.Errorf("turn = %+v, want an api_error turn with usage_limit_reached", tc)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("%d API requests, want 1 (a usage limit is not retried)", n)
	}
	next := turn(t, s, "again", nil)
	if !next.done.OK || next.done.Result != "back" {
		t.Errorf("the turn after the limit: %+v", next.done)
	}
	// The next call goes through: the CLI says the limit is lifted, with
	// nothing but the status.
	if lifted := eventsOf[engine.RateLimited](next.events); len(lifted) != 1 || lifted[0].Status != engine.LimitAllowed || lifted[0].Limit != "" {
		t.Errorf("rate limit events of the next turn: %+v, want one allowed", lifted)
	}
}

// Past a warning threshold: a rate_limit_event "allowed_warning" with the
// share used, once per change, not on every call.
func TestContractUsageWarning(t *testing.T) {
	resets := time.Now().Add(30 * time.Hour).Truncate(time.Second)
	warn := func(text string) claudetest.Reply {
		return claudetest.Say(text).NearLimit("seven_day", 0.8, 0.75, resets)
	}
	r := newRig(t, true).serve(warn("one"), warn("two")).subscribe()
	s := r.start()
	first := turn(t, s, "first", nil)
	limits := eventsOf[engine.RateLimited](first.events)
	if len(limits) != 1 || limits[0].Status != engine.LimitWarning || limits[0].Limit != "seven_day" ||
		limits[0].Utilization != 0.8 || !limits[0].ResetsAt.Equal(resets) || !first.done.OK {
		t.Errorf("first turn: limits %+v, result %+v", limits, first.done)
	}
	if again := eventsOf[engine.RateLimited](turn(t, s, "second", nil).events); len(again) != 0 {
		t.Errorf("the same warning came again: %+v", again)
	}
}

// With an API key the CLI ignores the usage-limit headers: a 429 is
// retried like any rate limit (system/api_retry), and no rate_limit_event
// comes.
func TestContractAPIKeyRetries429(t *testing.T) {
	resets := time.Now().Add(time.Hour)
	r := newRig(t, true).serve(claudetest.LimitReached("five_hour", resets).WithHeader("retry-after", "1").Times(2), claudetest.Say("ok"))
	s := r.start()
	log := turn(t, s, "hello", nil)
	retries := eventsOf[engine.APIRetry](log.events)
	t.Logf("retries: %+v", retries)
	if n := len(eventsOf[engine.RateLimited](log.events)); n != 0 {
		t.Errorf("%d RateLimited with an API key, want none", n)
	}
	if len(retries) != 2 || retries[0].Attempt != 1 || retries[1].Attempt != 2 || retries[0].MaxRetries != 10 ||
		retries[0].HTTPStatus != 429 || retries[0].Error != "rate_limit" || retries[0].Delay < time.Second {
		t.Errorf("retries = %+v, want attempts 1 and 2 of 10 after a 429, each waiting retry-after (1 s) or more", retries)
	}
	if !log.done.OK || log.done.Result != "ok" {
		t.Errorf("turn = %+v", log.done)
	}
}

// /compact sent as a user line compacts at once: status "compacting", then
// compact_boundary with trigger manual and the sizes before and after,
// then a result with no model turn.
func TestContractManualCompact(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("hello"), claudetest.Say("<summary>we said hello</summary>"))
	s := r.start()
	turn(t, s, "hi", nil)
	log := turn(t, s, "/compact", nil)
	compacting, compacted := eventsOf[engine.Compacting](log.events), eventsOf[engine.Compacted](log.events)
	if len(compacting) != 1 || len(compacted) != 1 {
		t.Fatalf("want one Compacting and one Compacted:%s", log)
	}
	c := compacted[0]
	t.Logf("compacted: %+v", c)
	if c.Trigger != "manual" || c.PreTokens <= 0 || c.PostTokens <= 0 || c.PostTokens >= c.PreTokens {
		t.Errorf("Compacted = %+v, want manual with pre > post > 0", c)
	}
	if !log.done.OK || log.done.NumTurns != 0 || log.done.Result != "" {
		t.Errorf("result of /compact = %+v", log.done)
	}
}

// A conversation near the window is compacted automatically before the
// next turn's model call, inside that turn; the result before it says how
// full the context was, and of which window.
func TestContractAutoCompactAndWindow(t *testing.T) {
	const full = 985000 // of the fake model's window of 1,000,000; 900,000 did not compact
	// The conversation after compaction has no assistant message: the fake
	// picks step 0 again, which tells the two apart by the summary.
	first := claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
		if strings.Contains(strings.Join(req.UserTexts(), " "), "we said hello") {
			return claudetest.Say("after")
		}
		return claudetest.Say("hello").WithInputTokens(full)
	})
	r := newRig(t, true).serve(first, claudetest.Say("<summary>we said hello</summary>"))
	s := r.start()
	before := turn(t, s, "hi", nil).done
	t.Logf("context %d of %d", before.ContextTokens, before.ContextWindow)
	if before.ContextTokens != full || before.ContextWindow != 1000000 {
		t.Errorf("context %d of %d, want %d of 1000000", before.ContextTokens, before.ContextWindow, full)
	}
	log := turn(t, s, "next", nil)
	compacted := eventsOf[engine.Compacted](log.events)
	if len(eventsOf[engine.Compacting](log.events)) != 1 || len(compacted) != 1 {
		t.Fatalf("want one Compacting and one Compacted:%s", log)
	}
	c := compacted[0]
	t.Logf("compacted: %+v", c)
	if c.Trigger != "auto" || math.Abs(float64(c.PreTokens-full)) > 100 || c.PostTokens <= 0 || c.PostTokens > 10000 {
		t.Errorf("Compacted = %+v, want auto from about %d to a few thousand", c, full)
	}
	t.Logf("after compaction: context %d of %d", log.done.ContextTokens, log.done.ContextWindow)
	if !log.done.OK || log.done.Result != "after" || log.done.ContextTokens >= full {
		t.Errorf("turn after compaction: %+v", log.done)
	}
}

// The CPU time of the CLI's tree grows while a tool computes and hardly
// while it waits: what the bot's stall watchdog tells them apart by.
// Measuring CPU over wall time needs real time: this test sleeps.
func TestContractTreeCPU(t *testing.T) {
	for _, c := range []struct {
		name, command string
		busy          bool
	}{
		{"waiting", "timeout 60 tail -f %s", false},
		{"busy", "timeout 60 sh -c 'while :; do :; done' %s", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, true)
			marker := r.path("marker.log")
			if err := os.WriteFile(marker, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			r.serve(claudetest.Answer(bashUse(strings.Replace(c.command, "%s", marker, 1))), claudetest.Say("done"))
			s := r.start()
			if err := s.Send(ctxFor(t), "Run it."); err != nil {
				t.Fatal(err)
			}
			running := pollAllowing(t, s, func() bool {
				for _, p := range procsMatching(marker) {
					if !strings.Contains(p.cmd, "bash") && !strings.Contains(p.cmd, "timeout") {
						return true
					}
				}
				return false
			})
			if !running {
				t.Fatal("the tool's command never started")
			}
			// The CLI is busy for a moment after it started the tool; then,
			// idle, it uses 0-90 ms a second (measured: 25 ms on average).
			time.Sleep(time.Second)
			const window = 3 * time.Second
			before, err := host.Local{}.TreeCPU(ctxFor(t), s.Pid())
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(window)
			used := treeCPUSince(t, s.Pid(), before)
			t.Logf("%s: %v of CPU in %v (%.1f%%)", c.name, used, window, 100*used.Seconds()/window.Seconds())
			// A busy loop gets what the scheduler gives it: beside
			// stress-ng --cpu 4 on 2 cores, 37%. Its tree is given until
			// the tool's own timeout nears to count window/2 of CPU.
			if c.busy && used < window/2 {
				poll(40*time.Second, func() bool { used = treeCPUSince(t, s.Pid(), before); return used >= window/2 })
			}
			if c.busy && used < window/2 {
				t.Errorf("a busy loop used only %v in %v and 40 s more", used, window)
			}
			// The bot's watchdog counts a tenth of the time as busy.
			if !c.busy && used >= window/10 {
				t.Errorf("a waiting tool's tree used %v in %v", used, window)
			}
		})
	}
	if _, err := (host.Local{}).TreeCPU(ctxFor(t), 1<<30); err == nil {
		t.Error("TreeCPU of a pid that does not exist: no error")
	}
}

// treeCPUSince is the CPU time pid's tree used since it had used before.
func treeCPUSince(t *testing.T, pid int, before time.Duration) time.Duration {
	t.Helper()
	after, err := host.Local{}.TreeCPU(ctxFor(t), pid)
	if err != nil {
		t.Fatal(err)
	}
	return after - before
}
