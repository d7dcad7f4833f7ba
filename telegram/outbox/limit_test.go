package outbox

import (
	"testing"
	"time"
)

func TestPacerBurstThenInterval(t *testing.T) {
	var p pacer
	t0 := time.Unix(1000, 0)
	now := t0
	for i := range 3 {
		if next := p.next(time.Second, 3); next.After(now) {
			t.Fatalf("call %d refused at %v (next %v), burst is 3", i, now, next)
		}
		p.take(now, time.Second)
	}
	if next := p.next(time.Second, 3); !next.Equal(t0.Add(time.Second)) {
		t.Fatalf("after the burst next = %v, want t0+1s", next.Sub(t0))
	}
	if p.idle(t0.Add(2 * time.Second)) {
		t.Fatal("idle too early: three calls at t0 are only paid off at t0+3s")
	}
	if !p.idle(t0.Add(3 * time.Second)) {
		t.Fatal("not idle once the burst is paid off")
	}
}

func TestWindowSlides(t *testing.T) {
	w := newWindow(3)
	t0 := time.Unix(1000, 0)
	for i := range 3 {
		w.take(t0.Add(time.Duration(i)*time.Second), false)
	}
	if next := w.next(time.Minute); !next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next = %v, want t0+1m (oldest call + period)", next.Sub(t0))
	}
	w.take(t0.Add(time.Minute), false)
	if next := w.next(time.Minute); !next.Equal(t0.Add(time.Minute + time.Second)) {
		t.Fatalf("next = %v, want t0+1m1s", next.Sub(t0))
	}
	if w.idle(t0.Add(time.Minute+59*time.Second), time.Minute) {
		t.Fatal("idle while the newest call is still in the window")
	}
	if !w.idle(t0.Add(2*time.Minute), time.Minute) {
		t.Fatal("not idle after every call left the window")
	}
}

func TestWindowNextLowAndTouch(t *testing.T) {
	w := newWindow(3)
	t0 := time.Unix(1000, 0)
	if !w.nextLow(time.Second, 1, false).IsZero() {
		t.Fatal("an empty window refuses")
	}
	w.take(t0, true)
	w.take(t0.Add(100*time.Millisecond), true)
	// Leaving one of 3 free: 2 are in, so the older must leave first.
	if next := w.nextLow(time.Second, 1, false); !next.Equal(t0.Add(time.Second)) {
		t.Fatalf("nextLow = %v, want t0+1s", next.Sub(t0))
	}
	if next := w.next(time.Second); !next.IsZero() {
		t.Fatalf("the full limit still has room, next = %v", next.Sub(t0))
	}
	// The newest call counts from its answer, never earlier.
	w.touch(t0.Add(500 * time.Millisecond))
	w.touch(t0.Add(200 * time.Millisecond))
	if next := w.nextLow(time.Second, 2, false); !next.Equal(t0.Add(1500 * time.Millisecond)) {
		t.Fatalf("nextLow(reserve 2) = %v, want t0+1.5s (newest answered at 0.5s)", next.Sub(t0))
	}
}

// In a busy group, Low leaves room for as many other calls as the last
// minute held, when that is more than the fixed reserve.
func TestWindowNextLowAdaptive(t *testing.T) {
	w := newWindow(20)
	t0 := time.Unix(1000, 0)
	for i := range 10 { // answers, prompts, progress messages
		w.take(t0.Add(time.Duration(i)*time.Second), false)
	}
	for i := range 2 { // edits
		w.take(t0.Add(time.Duration(10+i)*time.Second), true)
	}
	// Fixed reserve 8: 12 + 8 = 20, full until the oldest leaves (t0+1m).
	// Adaptive: 12 + 10 others = 22; once two others have left (the second
	// at t0+1m1s), 10 + 8 < 20.
	if next := w.nextLow(time.Minute, 8, false); !next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("fixed: next = %v, want t0+1m", next.Sub(t0))
	}
	if next := w.nextLow(time.Minute, 8, true); !next.Equal(t0.Add(time.Minute + time.Second)) {
		t.Fatalf("adaptive: next = %v, want t0+1m1s", next.Sub(t0))
	}
	// A quiet group: the fixed reserve rules.
	q := newWindow(20)
	for i := range 5 {
		q.take(t0.Add(time.Duration(i)*time.Second), i == 0)
	}
	if next := q.nextLow(time.Minute, 8, true); !next.IsZero() {
		t.Fatalf("quiet group: next = %v, want now (5 + 8 < 20)", next.Sub(t0))
	}
}
