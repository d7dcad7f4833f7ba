package draftid

import (
	"testing"
	"time"
)

// A message's first turn keeps its id (drafts of one turn animate into
// each other under it); every other turn gets an id of its own, also
// across a restart, within what a client reads exactly.
func TestIDsNameOneTurn(t *testing.T) {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	d := New(start)
	seen := map[int64]bool{}
	take := func(id int64) {
		t.Helper()
		if id == 0 || id >= 1<<53 || seen[id] {
			t.Fatalf("draft id %d: zero, too large or handed out before (%v)", id, seen)
		}
		seen[id] = true
	}
	if id := d.For(1, 5); id != 5 {
		t.Errorf("first turn of message 5: id %d, want 5", id)
	}
	seen[5] = true
	take(d.For(1, 5)) // Run anyway, /retry
	take(d.For(1, 0)) // a run whose first message was not sent
	take(d.For(1, 0))
	take(d.For(1, 3)) // an older message run again
	if id := d.For(2, 5); id != 5 {
		t.Errorf("another chat's message 5: id %d, want 5", id)
	}
	later := New(start.Add(time.Second))
	take(later.For(1, 0))
	take(later.For(1, 0))
}
