package chat_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
)

// revocable lets everyone in until revoked.
type revocable struct{ off atomic.Bool }

func (r *revocable) Turn(int64, int64, bool) (bool, bool) { return true, !r.off.Load() }
func (r *revocable) Held(prefs.HeldSession) (bool, bool)  { return true, !r.off.Load() }

// A steered message Claude runs on its own (the turn answered before
// taking it) whose sender is no longer allowed when its turn would start:
// the bot drops it as any refused message and stops Claude's run of it,
// so nothing of it reaches a later turn.
func TestSteeredRunRefusedByAccessIsStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		step := make(chan struct{})
		var mu sync.Mutex
		var ran, stopped []string
		eng := fakeEngine{script: func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			ran = append(ran, tr.Prompt)
			mu.Unlock()
			if tr.Prompt == "work" {
				<-step
				tr.Complete("done")
				return
			}
			<-tr.Interrupted()
			mu.Lock()
			stopped = append(stopped, tr.Prompt)
			mu.Unlock()
			tr.Aborted()
		}}
		access := &revocable{}
		core, store, submit := steerCore(t, eng, access, &recorder{})
		submit(1, 10, "work")
		synctest.Wait()
		submit(2, 11, "also this")
		if err := core.Steer(ctx, "7", 11); err != nil {
			t.Fatal(err)
		}
		access.off.Store(true)
		close(step) // answers without taking it: Claude runs it next
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(ran, []string{"work", "also this"}) || !slices.Equal(stopped, []string{"also this"}) {
			t.Errorf("runs %q, stopped %q; want Claude's run of the refused message stopped", ran, stopped)
		}
		mu.Unlock()
		if pending, err := store.AllPendingPrompts(); err != nil || len(pending) != 0 {
			t.Errorf("stored queue %+v, %v", pending, err)
		}
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		if err := core.Stop(sctx); err != nil {
			t.Fatal(err)
		}
	})
}
