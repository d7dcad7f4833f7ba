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
	low  []bool      // whether each was a Low job
	head int         // index of the oldest entry once full
	n    int
}

func newWindow(limit int) *window {
	return &window{ts: make([]time.Time, limit), low: make([]bool, limit)}
}

// at maps the i-th oldest entry to its slot.
func (w *window) at(i int) int { return (w.head + i) % len(w.ts) }

// next returns the earliest time at which one more call is admitted.
func (w *window) next(period time.Duration) time.Time {
	if w.n < len(w.ts) {
		return time.Time{}
	}
	return w.ts[w.head].Add(period)
}

// nextLow returns the earliest time at which a Low call is admitted: one
// that leaves room in the window for reserve calls of other priorities or,
// when adaptive, for as many as the window holds now if that is more (a
// busy group's last minute of answers and prompts predicts its next one).
func (w *window) nextLow(period time.Duration, reserve int, adaptive bool) time.Time {
	others := 0
	if adaptive {
		for i := range w.n {
			if !w.low[w.at(i)] {
				others++
			}
		}
	}
	// Try now, then each moment the oldest remaining call leaves.
	for gone := 0; gone <= w.n; gone++ {
		if gone > 0 && adaptive && !w.low[w.at(gone-1)] {
			others--
		}
		if w.n-gone+max(reserve, others) < len(w.ts) {
			if gone == 0 {
				return time.Time{}
			}
			return w.ts[w.at(gone-1)].Add(period)
		}
	}
	// Only when reserve >= the limit, which Options forbid: never.
	return time.Time{}.Add(1<<63 - 1)
}

func (w *window) take(now time.Time, low bool) {
	i := w.at(w.n)
	if w.n < len(w.ts) {
		w.n++
	} else {
		w.head = (w.head + 1) % len(w.ts)
	}
	w.ts[i], w.low[i] = now, low
}

// touch moves the newest call to now if that is later: a call counts from
// when its answer came back, the latest moment Telegram can have counted
// it, so network jitter between two calls never squeezes one more into
// Telegram's window than into ours. One call at a time per window (a chat
// runs one call at a time), so the newest entry is the call that finished.
func (w *window) touch(now time.Time) {
	if w.n == 0 {
		return
	}
	i := (w.head + w.n - 1) % len(w.ts)
	w.ts[i] = later(w.ts[i], now)
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
