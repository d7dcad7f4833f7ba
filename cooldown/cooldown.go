// Package cooldown keeps a progressive cooldown per key: each Pause opens a
// window that grows with the number of pauses since the last Reset
// (base, 2×base, 3×base, … capped at max). It is pure logic over an injected
// clock; nothing here starts timers, so callers ask Check when they need to know.
//
// The approvals broker uses it for "Pause & Outline Plan": an ExitPlanMode that
// comes back while the window is open is denied without asking the user, and
// the window grows if the model keeps coming back too soon.
package cooldown

import (
	"sync"
	"time"
)

// Defaults for the plan-outline cooldown: 30, 60, 90, 120, 120, … seconds.
const (
	DefaultBase = 30 * time.Second
	DefaultMax  = 120 * time.Second
)

// Tracker holds the cooldown state of every key. The zero value is not
// usable; call New. All methods are safe for concurrent use.
type Tracker struct {
	base, max time.Duration
	now       func() time.Time

	mu     sync.Mutex
	states map[string]state
	save   func(key string, count int, until time.Time)
}

type state struct {
	count int
	until time.Time
}

// New returns a tracker. base <= 0 disables it (Pause opens no window and
// counts nothing). max <= 0 means no cap. now nil means time.Now.
func New(base, max time.Duration, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	return &Tracker{base: base, max: max, now: now, states: make(map[string]state)}
}

// Enabled reports whether Pause opens windows at all.
func (t *Tracker) Enabled() bool { return t.base > 0 }

// Pause counts one more pause for key and opens a window starting now; it
// returns the window's length. The count survives expired windows on purpose:
// only an explicit decision (Reset) proves the model got the message.
func (t *Tracker) Pause(key string) time.Duration {
	if !t.Enabled() {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.states[key]
	s.count++
	w := t.window(s.count)
	s.until = t.now().Add(w)
	t.states[key] = s
	t.saveLocked(key, s)
	return w
}

// Persist makes every change call save (count 0 means the key was reset),
// so the state can outlive the process; see Restore. save runs under the
// tracker's lock, so calls for one key arrive in order.
func (t *Tracker) Persist(save func(key string, count int, until time.Time)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.save = save
}

// Restore puts back a state saved earlier (count <= 0 is ignored).
func (t *Tracker) Restore(key string, count int, until time.Time) {
	if count <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.states[key] = state{count: count, until: until}
}

func (t *Tracker) saveLocked(key string, s state) {
	if t.save != nil {
		t.save(key, s.count, s.until)
	}
}

// window is min(base × count, max), computed without overflowing for huge counts.
func (t *Tracker) window(count int) time.Duration {
	if t.max > 0 && int64(count) >= int64(t.max/t.base)+1 {
		return t.max
	}
	w := t.base * time.Duration(count)
	if t.max > 0 && w > t.max {
		return t.max
	}
	return w
}

// Check reports whether key's window is open, how long it has left, and how
// many pauses were counted since the last Reset.
func (t *Tracker) Check(key string) (active bool, remaining time.Duration, count int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s, ok := t.states[key]
	if !ok {
		return false, 0, 0
	}
	left := s.until.Sub(t.now())
	if left <= 0 {
		return false, 0, s.count
	}
	return true, left, s.count
}

// Reset closes any window and sets the count back to zero (an explicit
// Approve or Deny).
func (t *Tracker) Reset(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.states[key]; !ok {
		return
	}
	delete(t.states, key)
	t.saveLocked(key, state{})
}

// Forget drops key entirely (the session is gone). It has the same effect
// as Reset; it exists so call sites say what they mean.
func (t *Tracker) Forget(key string) { t.Reset(key) }
