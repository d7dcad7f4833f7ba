// Package accounts is what one Telegram account can make the bot do: the
// press limits of allowed users and the bounded notices to strangers.
package accounts

import (
	"container/list"
	"sync"
	"time"
)

// Anyone can send the bot
// updates; none of them may cost the owner's answers their speed.
const (
	// An allowed user may press this many buttons back to back, then one
	// more every PressEvery (60 a minute): far beyond a person's thumb,
	// far below what a script would like.
	DefaultPressBurst = 30
	PressEvery        = time.Second
	// refusalEvery limits what a user who is not allowed gets back (a
	// refusal message or toast) and the log line about them: once per
	// refusalEvery each.
	refusalEvery = time.Hour
	// All strangers together get at most strangersBurst notices back to
	// back, then one every strangersEvery: many accounts cannot buy many
	// answers either.
	strangersBurst = 10
	strangersEvery = 6 * time.Second
	// Kept bounds the memory: the least recently seen account is
	// forgotten first (it then starts afresh, with a full bucket).
	Kept = 4096
	// summaryEvery: updates ignored without a line of their own are
	// counted and logged together at most this often.
	summaryEvery = time.Minute
)

// bucket is a token bucket: burst tokens, one more every interval.
type bucket struct {
	tokens float64
	at     time.Time // last refill; zero: full
}

func (k *bucket) take(now time.Time, burst int, every time.Duration) bool {
	switch {
	case k.at.IsZero():
		k.tokens, k.at = float64(burst), now
	case now.After(k.at):
		k.tokens = min(float64(burst), k.tokens+float64(now.Sub(k.at))/float64(every))
		k.at = now
	}
	if k.tokens < 1 {
		return false
	}
	k.tokens--
	return true
}

// account is what the bot remembers about one Telegram user.
type account struct {
	id       int64
	presses  bucket
	noticed  time.Time // last notice sent to them (refusal, "slow down")
	interval uint64    // summary interval they were last counted in
}

// Table is a bounded table of accounts, least recently seen evicted.
type Table struct {
	mu         sync.Mutex
	max        int
	pressBurst int // < 0: presses are not limited
	byID       map[int64]*list.Element
	lru        list.List // of *account, most recently seen first
	strangers  bucket    // notices to all strangers together
	// Counts since the last summary.
	interval       uint64
	since          time.Time
	ignored, users int
}

func New(max, pressBurst int) *Table {
	return &Table{max: max, pressBurst: pressBurst, byID: map[int64]*list.Element{}}
}

// get returns id's account, created or moved to the front. Locked.
func (t *Table) get(id int64) *account {
	if e, ok := t.byID[id]; ok {
		t.lru.MoveToFront(e)
		return e.Value.(*account)
	}
	if t.lru.Len() >= t.max {
		old := t.lru.Back()
		t.lru.Remove(old)
		delete(t.byID, old.Value.(*account).id)
	}
	a := &account{id: id}
	t.byID[id] = t.lru.PushFront(a)
	return a
}

// Press takes one of an allowed user's presses; false: over their limit,
// and notify says whether to tell them (at most once per PressEvery×10).
func (t *Table) Press(id int64, now time.Time) (ok, notify bool) {
	if t.pressBurst < 0 {
		return true, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.get(id)
	if a.presses.take(now, t.pressBurst, PressEvery) {
		return true, false
	}
	if now.Sub(a.noticed) < 10*PressEvery {
		return false, false
	}
	a.noticed = now
	return false, true
}

// Stranger counts an update from a user who is not allowed and says
// whether they get a notice (and a log line) for it: once per
// refusalEvery each, within the budget all strangers share.
func (t *Table) Stranger(id int64, now time.Time) (notice bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.get(id)
	if t.since.IsZero() {
		t.since = now
	}
	t.ignored++
	if a.interval != t.interval+1 { // first time in this interval
		a.interval = t.interval + 1
		t.users++
	}
	if !a.noticed.IsZero() && now.Sub(a.noticed) < refusalEvery {
		return false
	}
	if !t.strangers.take(now, strangersBurst, strangersEvery) {
		return false
	}
	a.noticed = now
	return true
}

// Summary returns the strangers' updates counted since the last summary
// (and from how many accounts) once summaryEvery has passed, and starts
// counting afresh; ok is false when there is nothing to say yet.
func (t *Table) Summary(now time.Time) (ignored, users int, since time.Time, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ignored == 0 || now.Sub(t.since) < summaryEvery {
		return 0, 0, time.Time{}, false
	}
	ignored, users, since = t.ignored, t.users, t.since
	t.ignored, t.users, t.since = 0, 0, time.Time{}
	t.interval++
	return ignored, users, since, true
}

// Len is the number of accounts remembered.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lru.Len()
}
