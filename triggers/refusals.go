package triggers

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// summaryEvery: refusals without a line of their own are counted and
// logged together at most this often.
const summaryEvery = time.Minute

// refusals keeps what strangers cost the log bounded, as the bot does for
// Telegram users who are not allowed: the first refusal of a minute has a
// line of its own (so a sender with a wrong secret shows at once), the
// others are counted and logged in one line once the minute is over (at
// the next refusal, the server's minute tick, or its stop). Reasons are
// the server's words; what a request said (the name it asked for, its
// headers) is never logged.
type refusals struct {
	mu     sync.Mutex
	since  time.Time      // when the minute began (its first refusal); zero: no refusal yet
	counts map[string]int // the minute's refusals without a line of their own, by reason
}

// note counts a refusal for reason; attrs go on its line if it has one.
func (r *refusals) note(now time.Time, log *slog.Logger, reason string, attrs ...any) {
	r.mu.Lock()
	sum := r.takeLocked(now, false)
	own := r.since.IsZero()
	if own {
		r.since = now
	} else {
		if r.counts == nil {
			r.counts = map[string]int{}
		}
		r.counts[reason]++
	}
	r.mu.Unlock()
	sum.log(log)
	if own {
		log.Warn("trigger refused: "+reason, append(attrs, "note", "further refusals this minute are counted, not logged")...)
	}
}

// flush logs the count once the minute is over; with force, at once.
func (r *refusals) flush(now time.Time, log *slog.Logger, force bool) {
	r.mu.Lock()
	sum := r.takeLocked(now, force)
	r.mu.Unlock()
	sum.log(log)
}

type refusalSummary struct {
	n       int
	reasons []string
	since   time.Time
}

// takeLocked ends the minute when it is over (or force) and returns what
// it counted.
func (r *refusals) takeLocked(now time.Time, force bool) refusalSummary {
	if r.since.IsZero() || (!force && now.Sub(r.since) < summaryEvery) {
		return refusalSummary{}
	}
	sum := refusalSummary{since: r.since}
	for reason, n := range r.counts {
		sum.n += n
		sum.reasons = append(sum.reasons, fmt.Sprintf("%s: %d", reason, n))
	}
	slices.Sort(sum.reasons)
	r.since, r.counts = time.Time{}, nil
	return sum
}

func (s refusalSummary) log(log *slog.Logger) {
	if s.n == 0 {
		return
	}
	log.Warn("trigger requests refused", "requests", s.n, "reasons", strings.Join(s.reasons, "; "),
		"since", s.since.Format(time.TimeOnly))
}
