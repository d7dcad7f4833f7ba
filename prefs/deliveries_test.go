package prefs

import (
	"testing"
	"time"
)

func triggerRun(text string) Prompt {
	return Prompt{ChatID: 42, Text: text, Origin: &Origin{Kind: OriginTrigger, Label: "ci"}}
}

// A delivery is queued once: the same id again is seen before, also after
// the file is reopened, until its time is over; then it runs again.
func TestEnqueueDeliveryOnce(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	d := Delivery{ID: "ci sha256:aa", At: t0, Until: t0.Add(24 * time.Hour)}
	if _, got, err := s.EnqueueDelivery("42", triggerRun("one"), 3, d); err != nil || got != Queued {
		t.Fatalf("first: %v %v", got, err)
	}
	again := d
	again.At = t0.Add(time.Hour)
	if _, got, err := s.EnqueueDelivery("42", triggerRun("two"), 3, again); err != nil || got != SeenBefore {
		t.Fatalf("repeat: %v %v, want SeenBefore", got, err)
	}
	must(t, s.Close())
	s = openAt(t, path)
	again.At = t0.Add(24*time.Hour - time.Second)
	if _, got, err := s.EnqueueDelivery("42", triggerRun("three"), 3, again); err != nil || got != SeenBefore {
		t.Fatalf("repeat after reopening: %v %v, want SeenBefore", got, err)
	}
	if q := pendingOf(t, s, "42"); len(q) != 1 || q[0].Text != "one" {
		t.Fatalf("queued: %+v", q)
	}
	// Another trigger's delivery is another id.
	other := Delivery{ID: "deploy sha256:aa", At: again.At, Until: again.At.Add(24 * time.Hour)}
	if _, got, err := s.EnqueueDelivery("42", triggerRun("deploy"), 3, other); err != nil || got != Queued {
		t.Fatalf("other trigger: %v %v", got, err)
	}
	late := d
	late.At, late.Until = t0.Add(24*time.Hour), t0.Add(48*time.Hour)
	if _, got, err := s.EnqueueDelivery("42", triggerRun("late"), 3, late); err != nil || got != Queued {
		t.Fatalf("after 24 h: %v %v, want Queued", got, err)
	}
}

// A delivery whose run was not queued is not remembered: its sender may
// send it again. Old deliveries are dropped from the file.
func TestEnqueueDeliveryFullForgets(t *testing.T) {
	s := openTest(t)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	mk := func(id string, at time.Time) Delivery { return Delivery{ID: id, At: at, Until: at.Add(24 * time.Hour)} }
	seq, got, err := s.EnqueueDelivery("42", triggerRun("a"), 1, mk("ci a", t0))
	if err != nil || got != Queued {
		t.Fatalf("a: %v %v", got, err)
	}
	if _, got, err := s.EnqueueDelivery("42", triggerRun("b"), 1, mk("ci b", t0)); err != nil || got != QueueFull {
		t.Fatalf("b with a full queue: %v %v, want QueueFull", got, err)
	}
	must(t, s.DonePrompt("42", seq))
	if _, got, err := s.EnqueueDelivery("42", triggerRun("b"), 1, mk("ci b", t0)); err != nil || got != Queued {
		t.Fatalf("b again: %v %v, want Queued (a refused run is not remembered)", got, err)
	}
	if n := deliveriesKept(t, s); n != 2 {
		t.Fatalf("%d deliveries kept, want 2", n)
	}
	q := pendingOf(t, s, "42")
	must(t, s.DonePrompt("42", q[0].Seq))
	if _, _, err := s.EnqueueDelivery("42", triggerRun("c"), 1, mk("ci c", t0.Add(25*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if n := deliveriesKept(t, s); n != 1 {
		t.Errorf("%d deliveries kept after a day, want 1 (the old ones pruned)", n)
	}
}

func deliveriesKept(t *testing.T, s *Store) int {
	t.Helper()
	n := 0
	must(t, s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketDeliveries)
		if err != nil {
			return err
		}
		n = b.Stats().KeyN
		return nil
	}))
	return n
}
