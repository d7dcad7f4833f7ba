package outbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// maxInWindow returns the largest number of calls inside any half-open
// window [t, t+width) that starts at a call.
func maxInWindow(times []time.Duration, width time.Duration) int {
	best := 0
	for i := range times {
		n := 0
		for _, t := range times[i:] {
			if t < times[i]+width {
				n++
			}
		}
		best = max(best, n)
	}
	return best
}

func allTimes(r *recorder) []time.Duration {
	var out []time.Duration
	for _, c := range r.snapshot() {
		out = append(out, c.at)
	}
	return out
}

func TestGlobalLimitNeverExceeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: 25})
		var chans []<-chan error
		const chats, perChat = 150, 2 // within each chat's burst: only the global limit binds
		for c := range chats {
			for i := range perChat {
				j := r.job(int64(c+1), Normal, fmt.Sprint(i))
				inner := j.Do
				j.Do = func(ctx context.Context) error {
					err := inner(ctx) // records the start of the call
					time.Sleep(30 * time.Millisecond)
					return err
				}
				chans = append(chans, o.Enqueue(j))
			}
		}
		waitAll(t, chans...)
		times := allTimes(r)
		if len(times) != chats*perChat {
			t.Fatalf("%d calls, want %d", len(times), chats*perChat)
		}
		if n := maxInWindow(times, time.Second); n > 25 {
			t.Fatalf("%d calls within one second, limit 25", n)
		}
		perSecond := map[time.Duration]int{}
		for _, at := range times {
			perSecond[at.Truncate(time.Second)]++
		}
		for sec, n := range perSecond {
			if n > 25 {
				t.Fatalf("%d calls in virtual second %v", n, sec)
			}
		}
		// The budget is used, not just respected: 300 calls spaced 40ms.
		if last, want := times[len(times)-1], 299*40*time.Millisecond; last != want {
			t.Fatalf("last call at %v, want %v", last, want)
		}
	})
}

func TestChatIntervalNeverViolated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1, ChatInterval: 1500 * time.Millisecond})
		var chans []<-chan error
		for i := range 6 {
			chans = append(chans, o.Enqueue(r.job(5, Normal, fmt.Sprint(i))))
		}
		waitAll(t, chans...)
		ts := r.times(5)
		for i := 1; i < len(ts); i++ {
			if gap := ts[i] - ts[i-1]; gap != 1500*time.Millisecond {
				t.Fatalf("gap %d = %v, want exactly the 1.5s interval", i, gap)
			}
		}
	})
}

// The per-chat budget is Telegram's as the fake models it: at most 3 calls
// in any 3s window. The burst goes at once, and the budget is used fully.
func TestChatWindowBurstThenSteadyRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1}) // 3 per 3s
		var chans []<-chan error
		for i := range 10 {
			chans = append(chans, o.Enqueue(r.job(5, Normal, fmt.Sprint(i))))
		}
		waitAll(t, chans...)
		ts := r.times(5)
		if n := maxInWindow(ts, 3*time.Second); n > 3 {
			t.Fatalf("%d calls within 3s, limit 3: %v", n, ts)
		}
		if ts[2] != 0 {
			t.Fatalf("third call at %v, want the burst of 3 at once", ts[2])
		}
		if ts[9] != 9*time.Second {
			t.Fatalf("tenth call at %v, want 9s (3 every 3s)", ts[9])
		}
	})
}

// A call counts from its answer: a slow call does not let the next window
// open early, whatever the network did to the request.
func TestChatWindowCountsFromTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1})
		var chans []<-chan error
		for i := range 4 {
			j := r.job(5, Normal, fmt.Sprint(i))
			inner := j.Do
			j.Do = func(ctx context.Context) error {
				err := inner(ctx)
				time.Sleep(200 * time.Millisecond) // the call is on the wire
				return err
			}
			chans = append(chans, o.Enqueue(j))
		}
		waitAll(t, chans...)
		ts := r.times(5)
		// The first call was answered at 200ms; the fourth may start 3s later.
		if want := 200*time.Millisecond + 3*time.Second; ts[3] != want {
			t.Fatalf("fourth call at %v, want %v: %v", ts[3], want, ts)
		}
	})
}

// Progress edits (Low) leave one call of the chat's window free: an answer
// queued at any moment goes at once.
func TestLowLeavesChatReserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1})
		var chans []<-chan error
		for i := range 6 {
			chans = append(chans, o.Enqueue(r.job(5, Low, fmt.Sprint("edit", i))))
		}
		time.Sleep(time.Second)
		high := o.Enqueue(r.job(5, High, "final"))
		waitAll(t, append(chans, high)...)
		var lows []time.Duration
		for _, c := range r.snapshot() {
			if c.label == "final" {
				if c.at != time.Second {
					t.Errorf("final at %v, want 1s: the reserve was used by edits", c.at)
				}
				continue
			}
			lows = append(lows, c.at)
		}
		if n := maxInWindow(lows, 3*time.Second); n != 2 {
			t.Fatalf("%d edits within 3s, want exactly 2 (3 minus the reserve): %v", n, lows)
		}
	})
}

func TestGroupBudgetPerMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		// No reserves: this is about the minute budget and the spreading.
		o := newTestOutbox(t, Options{GlobalPerSecond: -1, ChatReserve: -1, GroupReserve: -1})
		const group = -1001234
		var chans []<-chan error
		for i := range 50 {
			chans = append(chans, o.Enqueue(r.job(group, Low, fmt.Sprint(i))))
		}
		// A private chat is not held back by the group's budget.
		private := o.Enqueue(r.job(77, Normal, "dm"))
		if err := <-private; err != nil {
			t.Fatal(err)
		}
		waitAll(t, chans...)
		ts := r.times(group)
		if n := maxInWindow(ts, time.Minute); n > 20 {
			t.Fatalf("%d calls to the group within one minute, limit 20", n)
		}
		inFirstMinute := 0
		for _, at := range ts {
			if at < time.Minute {
				inFirstMinute++
			}
		}
		if inFirstMinute != 20 {
			t.Fatalf("%d calls in the first minute, want the full budget of 20", inFirstMinute)
		}
		if dm := r.times(77); dm[0] > 100*time.Millisecond {
			t.Fatalf("private chat waited until %v", dm[0])
		}
		// Spread, not one burst followed by a minute of silence.
		for i := 3; i < 20; i++ {
			if gap := ts[i] - ts[i-1]; gap != 3*time.Second {
				t.Fatalf("gap %d = %v: after the burst, group calls should be ~3s apart", i, gap)
			}
		}
	})
}

// In a group, progress edits keep GroupReserve calls of the minute's budget
// free, and an answer may use them at once, without the spreading.
func TestGroupLowLeavesReserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1, GroupReserve: 5})
		const group = -1001234
		var chans []<-chan error
		for i := range 40 {
			chans = append(chans, o.Enqueue(r.job(group, Low, fmt.Sprint("edit", i))))
		}
		// Wait until the edits have used their share of the first minute.
		for len(r.times(group)) < 15 {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(3 * time.Second) // the chat's own 3s window is clear again
		began := time.Since(r.start)
		var finals []<-chan error
		for i := range 3 {
			finals = append(finals, o.Enqueue(r.job(group, High, fmt.Sprint("final", i))))
		}
		waitAll(t, finals...)
		var lows []time.Duration
		for _, c := range r.snapshot() {
			if strings.HasPrefix(c.label, "final") {
				if c.at != began {
					t.Errorf("%s at %v, want %v: the group's reserve was not kept", c.label, c.at, began)
				}
				continue
			}
			lows = append(lows, c.at)
		}
		if n := maxInWindow(lows, time.Minute); n > 15 {
			t.Fatalf("%d edits within a minute, want at most 20-5", n)
		}
		o.Close()
		waitAll(t, chans...)
	})
}

// Answers, prompts and progress messages are not spread over the group's
// minute: after a burst they go as soon as the windows allow.
func TestGroupSpreadIsForLowOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1})
		const group = -1001234
		var chans []<-chan error
		for i := range 6 {
			chans = append(chans, o.Enqueue(r.job(group, High, fmt.Sprint("final", i))))
		}
		waitAll(t, chans...)
		if err := <-o.Enqueue(r.job(group, Normal, "progress")); err != nil {
			t.Fatal(err)
		}
		ts := r.times(group)
		// The chat's window (3 in 3s) is the only bound: 0,0,0,3,3,3,6.
		if want := 6 * time.Second; ts[6] != want {
			t.Fatalf("progress message at %v, want %v: %v", ts[6], want, ts)
		}
		if n := maxInWindow(ts, 3*time.Second); n > 3 {
			t.Fatalf("%d calls within 3s: %v", n, ts)
		}
	})
}

// Drafts and chat actions run in a lane of their own: a full message
// window does not hold them, their own window does, and they never spend
// the chat's message budget.
func TestActionLane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatInterval: time.Second, ChatBurst: 3, ActionPeriod: time.Second, ActionBurst: 3, GlobalPerSecond: -1})
		var chans []<-chan error
		for i := range 4 {
			chans = append(chans, o.Enqueue(r.job(1, High, fmt.Sprint("m", i))))
		}
		for i := range 4 {
			j := r.job(1, Low, fmt.Sprint("d", i))
			j.Action = true
			chans = append(chans, o.Enqueue(j))
		}
		waitAll(t, chans...)
		at := map[string]time.Duration{}
		for _, c := range r.snapshot() {
			at[c.label] = c.at
		}
		// Three messages and three drafts at once; the fourth of each waits
		// for its own window.
		for _, l := range []string{"m0", "m1", "m2", "d0", "d1", "d2"} {
			if at[l] != 0 {
				t.Errorf("%s at %v, want 0", l, at[l])
			}
		}
		if at["d3"] != time.Second || at["m3"] != 3*time.Second {
			t.Errorf("d3 at %v (want 1s), m3 at %v (want 3s)", at["d3"], at["m3"])
		}
	})
}

// Delay says how long a chat's next message would wait for its window: a
// turn shows its answer as a draft meanwhile. Drafts don't count in it.
func TestDelayIsTheWindowsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatInterval: time.Second, ChatBurst: 3, GlobalPerSecond: -1})
		if d := o.Delay(1); d != 0 {
			t.Errorf("unused chat: delay %v, want 0", d)
		}
		d := r.job(1, Low, "draft")
		d.Action = true
		waitAll(t, o.Enqueue(d))
		if d := o.Delay(1); d != 0 {
			t.Errorf("after a draft: delay %v, want 0 (drafts have a lane of their own)", d)
		}
		var chans []<-chan error
		for i := range 3 {
			chans = append(chans, o.Enqueue(r.job(1, High, fmt.Sprint("m", i))))
		}
		waitAll(t, chans...)
		if d := o.Delay(1); d != 3*time.Second {
			t.Errorf("window full: delay %v, want 3s", d)
		}
		if d := o.Delay(2); d != 0 {
			t.Errorf("another chat: delay %v, want 0", d)
		}
		time.Sleep(2 * time.Second)
		if d := o.Delay(1); d != time.Second {
			t.Errorf("2 s later: delay %v, want 1s", d)
		}
	})
}
