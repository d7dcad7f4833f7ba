package chat

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/triggers"
)

// The scheduler without a frontend: a due schedule's run is queued in the
// store and handed to Run with its label; a schedule whose owner is no
// longer allowed is removed at Start; a trigger's delivery runs once and
// its replay is refused.
func TestSchedulerFiresQueuesAndRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, stop := context.WithCancel(context.Background())
		store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		now := time.Now()
		for _, sc := range []prefs.Schedule{
			{ID: "ok", Key: "1", ChatID: 1, UserID: 7, Prompt: "report", Every: time.Hour, Next: now.Add(time.Hour), Created: now},
			{ID: "gone", Key: "2", ChatID: 2, UserID: 8, Prompt: "old", Every: time.Hour, Next: now.Add(time.Hour), Created: now},
		} {
			if _, err := store.AddSchedule(sc, 10); err != nil {
				t.Fatal(err)
			}
		}
		runs := make(chan prefs.QueuedPrompt, 4)
		s := NewScheduler(SchedulerConfig{Store: store, Location: time.UTC,
			Allowed: func(chatID, userID int64) bool { return userID == 7 },
			Key:     func(chatID int64, thread int) string { return "hook-chat" },
			Label:   func(r schedule.Rule, now time.Time) string { return "every " + r.Every.String() },
			Run:     func(qp prefs.QueuedPrompt) { runs <- qp },
		})
		s.Start(ctx)
		defer func() { stop(); s.Wait() }()
		all, err := store.Schedules()
		if err != nil || len(all) != 1 || all[0].UserID != 7 {
			t.Fatalf("after start: %+v, %v", all, err)
		}

		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case qp := <-runs:
			if qp.Key != "1" || qp.Text != "report" || qp.Origin == nil || qp.Origin.Label != "every 1h0m0s" || qp.Seq == 0 {
				t.Fatalf("run %+v", qp)
			}
		default:
			t.Fatal("the due schedule did not run")
		}

		d := triggers.Delivery{ID: "d1", Body: []byte(`{"x":1}`), At: time.Now()}
		if err := s.trigger(ctx, triggers.Hook{Name: "ci", ChatID: 5, Prompt: "look"}, d); err != nil {
			t.Fatal(err)
		}
		if qp := <-runs; qp.Key != "hook-chat" || qp.Origin == nil || qp.Origin.Kind != prefs.OriginTrigger {
			t.Fatalf("trigger run %+v", qp)
		}
		if err := s.trigger(ctx, triggers.Hook{Name: "ci", ChatID: 5, Prompt: "look"}, d); !errors.Is(err, triggers.ErrDuplicate) {
			t.Fatalf("replay: %v", err)
		}
	})
}
