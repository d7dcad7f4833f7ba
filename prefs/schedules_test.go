package prefs

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestScheduleFiresOnceAndMovesOn(t *testing.T) {
	s := openTest(t)
	due := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	sc, err := s.AddSchedule(Schedule{Key: "42", ChatID: 42, UserID: 42, Prompt: "ci", Every: time.Hour, Next: due}, 2)
	must(t, err)
	p := Prompt{ChatID: 42, UserID: 42, Text: "ci", Origin: &Origin{Kind: OriginSchedule, ScheduleID: sc.ID, Due: due}}
	seq, fired, err := s.FireSchedule(sc.ID, due, due.Add(time.Hour), p)
	must(t, err)
	if !fired || seq == 0 {
		t.Fatalf("first fire: fired=%v seq=%d", fired, seq)
	}
	// The same due time again (a second loop, a retry): nothing is queued.
	if _, fired, err := s.FireSchedule(sc.ID, due, due.Add(2*time.Hour), p); err != nil || fired {
		t.Fatalf("second fire of the same due time: fired=%v err=%v", fired, err)
	}
	// The next due time while the first run still waits (a long turn runs):
	// the schedule moves on, no second run is queued.
	if _, fired, err := s.FireSchedule(sc.ID, due.Add(time.Hour), due.Add(2*time.Hour), p); err != nil || fired {
		t.Fatalf("fire while a run waits: fired=%v err=%v", fired, err)
	}
	q, err := s.AllPendingPrompts()
	must(t, err)
	if len(q) != 1 || q[0].Origin == nil || q[0].Origin.ScheduleID != sc.ID || q[0].Key != "42" {
		t.Fatalf("queue = %+v, want the one run with its origin", q)
	}
	all, err := s.Schedules()
	must(t, err)
	if len(all) != 1 || !all[0].Next.Equal(due.Add(2*time.Hour)) {
		t.Fatalf("schedules = %+v, want next moved on", all)
	}
	// Once the run began, the next one is queued again.
	must(t, s.BeginTurn("42", []uint64{seq}, nil))
	if _, fired, err := s.FireSchedule(sc.ID, due.Add(2*time.Hour), due.Add(3*time.Hour), p); err != nil || !fired {
		t.Fatalf("fire after the run began: fired=%v err=%v", fired, err)
	}
}

func TestOneOffScheduleIsRemovedWhenFired(t *testing.T) {
	s := openTest(t)
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	sc, err := s.AddSchedule(Schedule{Key: "42", ChatID: 42, Prompt: "x", At: at, Next: at}, 0)
	must(t, err)
	if _, fired, err := s.FireSchedule(sc.ID, at, time.Time{}, Prompt{Text: "x"}); err != nil || !fired {
		t.Fatalf("fire: %v %v", fired, err)
	}
	all, err := s.Schedules()
	must(t, err)
	if len(all) != 0 {
		t.Fatalf("a one-off stays after its run: %+v", all)
	}
}

func TestScheduleLimitAndRemove(t *testing.T) {
	s := openTest(t)
	next := time.Now().Add(time.Hour)
	a, err := s.AddSchedule(Schedule{Key: "42", ChatID: 42, Prompt: "a", Every: time.Hour, Next: next}, 2)
	must(t, err)
	_, err = s.AddSchedule(Schedule{Key: "42", ChatID: 42, Prompt: "b", Every: time.Hour, Next: next}, 2)
	must(t, err)
	if _, err := s.AddSchedule(Schedule{Key: "42", ChatID: 42, Prompt: "c", Every: time.Hour, Next: next}, 2); !errors.Is(err, ErrTooMany) {
		t.Fatalf("third schedule: err = %v, want ErrTooMany", err)
	}
	if _, err := s.AddSchedule(Schedule{Key: "43", ChatID: 43, Prompt: "c", Every: time.Hour, Next: next}, 2); err != nil {
		t.Fatalf("another chat has its own limit: %v", err)
	}
	if found, err := s.RemoveSchedule("43", a.ID); err != nil || found {
		t.Fatalf("removed from another chat: %v %v", found, err)
	}
	if found, err := s.RemoveSchedule("42", a.ID); err != nil || !found {
		t.Fatalf("remove: %v %v", found, err)
	}
}

func TestSyncConfigSchedulesKeepsDueTimes(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	old := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	must(t, s.SyncConfigSchedules([]Schedule{
		{ID: "c:a", Key: "42", ChatID: 42, Prompt: "a", Cron: "0 9 * * *", Next: old},
		{ID: "c:b", Key: "42", ChatID: 42, Prompt: "b", Every: time.Hour, Next: old},
	}))
	user, err := s.AddSchedule(Schedule{Key: "42", ChatID: 42, Prompt: "u", Every: time.Hour, Next: old}, 0)
	must(t, err)
	must(t, s.Close())

	s = openAt(t, path)
	// After a restart the config lost b and gained c; a is unchanged and
	// keeps its missed due time, so the bot can run it late, once.
	later := old.Add(7 * 24 * time.Hour)
	must(t, s.SyncConfigSchedules([]Schedule{
		{ID: "c:a", Key: "42", ChatID: 42, Prompt: "a", Cron: "0 9 * * *", Next: later},
		{ID: "c:c", Key: "42", ChatID: 42, Prompt: "c", Every: time.Hour, Next: later},
	}))
	all, err := s.Schedules()
	must(t, err)
	got := map[string]time.Time{}
	for _, sc := range all {
		got[sc.ID] = sc.Next
	}
	if len(got) != 3 || !got["c:a"].Equal(old) || !got["c:c"].Equal(later) || !got[user.ID].Equal(old) {
		t.Fatalf("after sync: %v", got)
	}
	if found, err := s.RemoveSchedule("42", "c:a"); err != nil || found {
		t.Fatalf("a config schedule was removed by a user: %v %v", found, err)
	}
}

func TestEnqueueDeliveryBounded(t *testing.T) {
	s := openTest(t)
	p := Prompt{ChatID: 42, Text: "hook", Origin: &Origin{Kind: OriginTrigger, Label: "ci"}}
	for i := range 2 {
		if _, got, err := s.EnqueueDelivery("42", p, 2, anyDelivery(i)); err != nil || got != Queued {
			t.Fatalf("run %d: %v %v", i, got, err)
		}
	}
	if _, got, err := s.EnqueueDelivery("42", p, 2, anyDelivery(2)); err != nil || got != QueueFull {
		t.Fatalf("third queued run: %v err=%v, want refused", got, err)
	}
	// Prompts people typed do not count against triggers.
	if _, _, err := s.AcceptUpdate(1, "43", &Prompt{ChatID: 43, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, got, err := s.EnqueueDelivery("43", p, 1, anyDelivery(3)); err != nil || got != Queued {
		t.Fatalf("a typed prompt counted: %v %v", got, err)
	}
}

// anyDelivery is a delivery of its own, i.
func anyDelivery(i int) Delivery {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return Delivery{ID: fmt.Sprint("ci ", i), At: at, Until: at.Add(time.Hour)}
}

func TestAnnouncedRunIsKept(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	seq, got, err := s.EnqueueDelivery("42", Prompt{ChatID: 42, Text: "hook", Origin: &Origin{Kind: OriginTrigger}}, 3, anyDelivery(0))
	must(t, err)
	if got != Queued {
		t.Fatal("not queued")
	}
	if found, err := s.AnnouncedRun("42", seq, 777); err != nil || !found {
		t.Fatalf("AnnouncedRun: %v %v", found, err)
	}
	must(t, s.Close())
	s = openAt(t, path)
	q, err := s.AllPendingPrompts()
	must(t, err)
	if len(q) != 1 || q[0].MessageID != 777 {
		t.Fatalf("after a restart: %+v", q)
	}
	must(t, s.DonePrompt("42", seq))
	if found, err := s.AnnouncedRun("42", seq, 778); err != nil || found {
		t.Fatalf("a run no longer queued: %v %v", found, err)
	}
}
