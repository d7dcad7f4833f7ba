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
		w.take(t0.Add(time.Duration(i) * time.Second))
	}
	if next := w.next(time.Minute); !next.Equal(t0.Add(time.Minute)) {
		t.Fatalf("next = %v, want t0+1m (oldest call + period)", next.Sub(t0))
	}
	w.take(t0.Add(time.Minute))
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
