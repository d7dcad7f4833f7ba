package outbox

import (
	"context"
	"fmt"
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
		o := newTestOutbox(t, Options{}) // default 25/s
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

func TestChatBurstThenSteadyRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1}) // 1s interval, burst 3
		var chans []<-chan error
		for i := range 10 {
			chans = append(chans, o.Enqueue(r.job(5, Normal, fmt.Sprint(i))))
		}
		waitAll(t, chans...)
		ts := r.times(5)
		for i := range ts {
			for k := i + 1; k < len(ts); k++ {
				allowed := 3 + int((ts[k]-ts[i])/time.Second)
				if k-i+1 > allowed {
					t.Fatalf("calls %d..%d (%v..%v) exceed burst 3 + 1/s", i, k, ts[i], ts[k])
				}
			}
		}
		if ts[2] != 0 {
			t.Fatalf("third call at %v, want the burst of 3 at once", ts[2])
		}
		if ts[9] != 7*time.Second {
			t.Fatalf("tenth call at %v, want 7s (burst 3, then 1/s)", ts[9])
		}
	})
}

func TestGroupBudgetPerMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{GlobalPerSecond: -1})
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
