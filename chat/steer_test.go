package chat_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// steerFront records the steer notes the core gives its frontend.
type steerFront struct {
	*recorder
	mu     sync.Mutex
	stages map[int][]chat.SteerStage
}

func (f *steerFront) Note(_ chat.Place, replyTo int, n chat.Note) {
	if s, ok := n.(chat.NoteSteered); ok {
		f.mu.Lock()
		f.stages[replyTo] = append(f.stages[replyTo], s.Stage)
		f.mu.Unlock()
	}
}

// steerCore starts a core on eng with a state file of its own; submit
// queues a message of user 7 in chat 7.
func steerCore(t *testing.T, eng fakeEngine, access chat.Access, front chat.Surface) (*chat.Core, *prefs.Store, func(update int64, msgID int, text string)) {
	t.Helper()
	ctx := context.Background()
	store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	core, err := chat.New(chat.Config{WorkDir: t.TempDir()}, eng, store, access, func(int64) bool { return true },
		front, redact.New(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	core.Start(ctx)
	submit := func(update int64, msgID int, text string) {
		p := prefs.Prompt{UpdateID: update, ChatID: 7, UserID: 7, MessageID: msgID, Text: text, Date: time.Now()}
		seq, _, err := store.AcceptUpdate(update, "7", &p)
		if err != nil {
			t.Fatal(err)
		}
		core.Submit("7", chat.Place{ChatID: 7}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
	}
	return core, store, submit
}

// The core's side of steering, without Telegram: a queued message sent
// into the running turn is taken by it, leaves the queue and the store,
// runs once, and the frontend is told each step; a second Steer of it, one
// of a message not queued and one with no turn running are refused;
// CancelIf leaves a turn its check does not pick alone.
func TestSteerIntoTheRunningTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		step := make(chan struct{})
		var mu sync.Mutex
		var ran, took []string
		eng := fakeEngine{script: func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			ran = append(ran, tr.Prompt)
			mu.Unlock()
			if tr.Prompt == "work" {
				<-step
				got := tr.TakeSteered()
				mu.Lock()
				took = append(took, got...)
				mu.Unlock()
			}
			tr.Complete("done")
		}}
		front := &steerFront{recorder: &recorder{}, stages: map[int][]chat.SteerStage{}}
		core, store, submit := steerCore(t, eng, everyone{}, front)
		submit(1, 10, "work")
		synctest.Wait()
		submit(2, 11, "also this")
		if err := core.Steer(ctx, "7", 12); !errors.Is(err, chat.ErrNotQueued) {
			t.Errorf("steer of a message not queued: %v", err)
		}
		if core.CancelIf("7", func(chat.TurnSurface) bool { return false }) {
			t.Error("CancelIf cancelled a turn its check refused")
		}
		if err := core.Steer(ctx, "7", 11); err != nil {
			t.Fatal(err)
		}
		if err := core.Steer(ctx, "7", 11); !errors.Is(err, chat.ErrNotQueued) {
			t.Errorf("a second steer of the same message: %v", err)
		}
		close(step)
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(ran, []string{"work"}) || !slices.Equal(took, []string{"also this"}) {
			t.Errorf("turns %q, taken into the turn %q", ran, took)
		}
		mu.Unlock()
		front.mu.Lock()
		if got := front.stages[11]; !slices.Equal(got, []chat.SteerStage{chat.SteerSent, chat.SteerJoined}) {
			t.Errorf("the frontend was told %v", got)
		}
		front.mu.Unlock()
		if pending, err := store.AllPendingPrompts(); err != nil || len(pending) != 0 {
			t.Errorf("stored queue %+v, %v", pending, err)
		}
		if err := core.Steer(ctx, "7", 11); !errors.Is(err, chat.ErrNotRunning) {
			t.Errorf("steer with no turn running: %v", err)
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := core.Stop(sctx); err != nil {
			t.Fatal(err)
		}
	})
}
