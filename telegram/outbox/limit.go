package outbox

import "time"

// pacer is a GCRA ("virtual scheduling") limiter: one call per interval on
// average, with up to burst calls back to back after an idle period. Over any
// window of length T it admits at most burst + T/interval calls. It keeps a
// single timestamp, so idle chats stay cheap.
type pacer struct {
	tat time.Time // theoretical arrival time of the next call at the steady rate
}

// next returns the earliest time at which one more call is admitted.
func (p *pacer) next(interval time.Duration, burst int) time.Time {
	if interval <= 0 || p.tat.IsZero() {
		return time.Time{}
	}
	return p.tat.Add(-time.Duration(burst-1) * interval)
}

// take records a call made at now (which must not be before next()).
func (p *pacer) take(now time.Time, interval time.Duration) {
	if interval <= 0 {
		return
	}
	if p.tat.Before(now) {
		p.tat = now
	}
	p.tat = p.tat.Add(interval)
}

// idle reports whether the pacer has fully recovered, i.e. forgetting it
// changes nothing.
func (p *pacer) idle(now time.Time) bool {
	return !p.tat.After(now)
}

// window is an exact sliding-window limiter: at most len(ts) calls in any
// window of length period. Used where the platform states a hard "N per
// minute" budget (groups), because a token bucket alone would let a full
// bucket plus the refill through within one minute.
type window struct {
	ts   []time.Time // ring buffer of the most recent calls
	head int         // index of the oldest entry once full
	n    int
}

func newWindow(limit int) *window {
	return &window{ts: make([]time.Time, limit)}
}

// next returns the earliest time at which one more call is admitted.
func (w *window) next(period time.Duration) time.Time {
	if w.n < len(w.ts) {
		return time.Time{}
	}
	return w.ts[w.head].Add(period)
}

func (w *window) take(now time.Time) {
	if w.n < len(w.ts) {
		w.ts[(w.head+w.n)%len(w.ts)] = now
		w.n++
		return
	}
	w.ts[w.head] = now
	w.head = (w.head + 1) % len(w.ts)
}

// idle reports whether every recorded call has left the window.
func (w *window) idle(now time.Time, period time.Duration) bool {
	if w.n == 0 {
		return true
	}
	newest := w.ts[(w.head+w.n-1)%len(w.ts)]
	return !newest.Add(period).After(now)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
