package schedule

import (
	"context"
	"time"
)

// maxSleep bounds one wait of the loop: timers run on the monotonic
// clock, so a wall clock set forward (or a machine that slept) would
// otherwise delay a run by as much; every minute the loop looks again.
const maxSleep = time.Minute

// Loop wakes when the next schedule is due. It holds no schedules: next
// says when the earliest is due (from the store), fire runs what is due.
type Loop struct {
	poke chan struct{}
}

// NewLoop makes a loop; Run starts it.
func NewLoop() *Loop { return &Loop{poke: make(chan struct{}, 1)} }

// Poke makes the loop ask next again: a schedule was added or removed.
// It never blocks.
func (l *Loop) Poke() {
	select {
	case l.poke <- struct{}{}:
	default:
	}
}

// Run calls fire(now) whenever the time next reported has come, until
// ctx ends. next reports ok false when nothing is scheduled. fire must
// move every due schedule on (or drop it), or the loop would spin; it
// runs on the loop's goroutine, so two never overlap.
func (l *Loop) Run(ctx context.Context, next func() (time.Time, bool), fire func(now time.Time)) {
	timer := time.NewTimer(maxSleep)
	defer timer.Stop()
	for {
		due, ok := next()
		wait := maxSleep
		if ok {
			if d := time.Until(due); d <= 0 {
				fire(time.Now())
				continue
			} else if d < wait {
				wait = d
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return
		case <-l.poke: // Reset drops the old wait (Go 1.23 timers: no stale tick)
		case <-timer.C:
		}
	}
}
