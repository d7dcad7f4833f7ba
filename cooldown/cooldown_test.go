package cooldown

import (
	"sync"
	"testing"
	"time"
)

// clock is a hand-driven time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step is one thing done to the tracker, followed by what Check must say.
type step struct {
	op      string // "pause", "wait", "reset", "forget", "check"
	d       time.Duration
	window  time.Duration // expected Pause result
	active  bool
	left    time.Duration
	count   int
	otherOK bool // also assert that key "other" is untouched
}

func TestTracker(t *testing.T) {
	s := time.Second
	tests := []struct {
		name      string
		base, max time.Duration
		steps     []step
	}{
		{
			name: "escalates and caps",
			base: 30 * s, max: 120 * s,
			steps: []step{
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1},
				{op: "pause", window: 60 * s, active: true, left: 60 * s, count: 2},
				{op: "pause", window: 90 * s, active: true, left: 90 * s, count: 3},
				{op: "pause", window: 120 * s, active: true, left: 120 * s, count: 4},
				{op: "pause", window: 120 * s, active: true, left: 120 * s, count: 5},
				{op: "pause", window: 120 * s, active: true, left: 120 * s, count: 6, otherOK: true},
			},
		},
		{
			name: "expiry keeps the count",
			base: 30 * s, max: 120 * s,
			steps: []step{
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1},
				{op: "wait", d: 10 * s, active: true, left: 20 * s, count: 1},
				{op: "wait", d: 20 * s, active: false, left: 0, count: 1},
				{op: "wait", d: time.Hour, active: false, left: 0, count: 1},
				{op: "pause", window: 60 * s, active: true, left: 60 * s, count: 2},
				{op: "wait", d: 59 * s, active: true, left: 1 * s, count: 2},
				{op: "wait", d: 1 * s, active: false, left: 0, count: 2},
			},
		},
		{
			name: "reset clears window and count",
			base: 30 * s, max: 120 * s,
			steps: []step{
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1},
				{op: "pause", window: 60 * s, active: true, left: 60 * s, count: 2},
				{op: "reset", active: false, left: 0, count: 0},
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1},
				{op: "forget", active: false, left: 0, count: 0},
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1, otherOK: true},
			},
		},
		{
			name: "cap below a multiple of base",
			base: 30 * s, max: 100 * s,
			steps: []step{
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 1},
				{op: "pause", window: 60 * s, active: true, left: 60 * s, count: 2},
				{op: "pause", window: 90 * s, active: true, left: 90 * s, count: 3},
				{op: "pause", window: 100 * s, active: true, left: 100 * s, count: 4},
			},
		},
		{
			name: "no cap",
			base: 10 * s, max: 0,
			steps: []step{
				{op: "pause", window: 10 * s, active: true, left: 10 * s, count: 1},
				{op: "pause", window: 20 * s, active: true, left: 20 * s, count: 2},
				{op: "pause", window: 30 * s, active: true, left: 30 * s, count: 3},
			},
		},
		{
			name: "disabled",
			base: 0, max: 120 * s,
			steps: []step{
				{op: "pause", window: 0, active: false, left: 0, count: 0},
				{op: "pause", window: 0, active: false, left: 0, count: 0},
				{op: "check", active: false, left: 0, count: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
			tr := New(tc.base, tc.max, c.now)
			for i, st := range tc.steps {
				switch st.op {
				case "pause":
					if got := tr.Pause("k"); got != st.window {
						t.Fatalf("step %d: Pause = %v, want %v", i, got, st.window)
					}
				case "wait":
					c.advance(st.d)
				case "reset":
					tr.Reset("k")
				case "forget":
					tr.Forget("k")
				case "check":
				default:
					t.Fatalf("unknown op %q", st.op)
				}
				active, left, count := tr.Check("k")
				if active != st.active || left != st.left || count != st.count {
					t.Fatalf("step %d (%s): Check = (%v, %v, %d), want (%v, %v, %d)",
						i, st.op, active, left, count, st.active, st.left, st.count)
				}
				if st.otherOK {
					if a, l, n := tr.Check("other"); a || l != 0 || n != 0 {
						t.Fatalf("step %d: other key changed: (%v, %v, %d)", i, a, l, n)
					}
				}
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	if New(0, time.Minute, nil).Enabled() {
		t.Fatal("base 0 must be disabled")
	}
	if !New(time.Second, 0, nil).Enabled() {
		t.Fatal("base 1s must be enabled")
	}
}

func TestConcurrentPauses(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	tr := New(time.Second, 0, c.now)
	const n = 50
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			tr.Pause("k")
			tr.Check("k")
		})
	}
	wg.Wait()
	if _, left, count := tr.Check("k"); count != n || left != n*time.Second {
		t.Fatalf("after %d concurrent pauses: count %d, left %v", n, count, left)
	}
}

func TestPersistAndRestore(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
	type saved struct {
		count int
		until time.Time
	}
	store := map[string]saved{}
	var calls int
	tr := New(30*time.Second, 120*time.Second, c.now)
	tr.Persist(func(key string, count int, until time.Time) {
		calls++
		if count == 0 {
			delete(store, key)
			return
		}
		store[key] = saved{count, until}
	})
	tr.Pause("a")
	tr.Pause("a")
	tr.Pause("b")
	if got := store["a"]; got.count != 2 || !got.until.Equal(c.now().Add(60*time.Second)) {
		t.Fatalf("saved a = %+v", got)
	}
	tr.Reset("b")
	tr.Reset("never-paused") // nothing to save
	if _, ok := store["b"]; ok || calls != 4 {
		t.Fatalf("after resets: store %+v, %d saves", store, calls)
	}

	// A new process restores what was saved: same window, same count.
	c.advance(20 * time.Second)
	next := New(30*time.Second, 120*time.Second, c.now)
	for k, s := range store {
		next.Restore(k, s.count, s.until)
	}
	next.Restore("zero", 0, c.now().Add(time.Hour)) // ignored
	active, left, count := next.Check("a")
	if !active || left != 40*time.Second || count != 2 {
		t.Errorf("restored a: active %v left %v count %d", active, left, count)
	}
	if active, _, count := next.Check("zero"); active || count != 0 {
		t.Error("a zero count was restored")
	}
	// The count keeps growing from where it was.
	if w := next.Pause("a"); w != 90*time.Second {
		t.Errorf("third pause after restore opens %v, want 90s", w)
	}
}
