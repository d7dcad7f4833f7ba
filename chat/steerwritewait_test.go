package chat_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine/enginetest"
)

// "⚡ Send now" whose line stays in the writer as the turn ends (a held
// Claude's link down): the turn's end does not wait for it past a bound.
// The message counts as sent (Claude runs a line written after its answer
// on its own): the frontend is told it runs next, and it runs once, as
// the next turn, when the line finally goes through.
func TestSendNowStuckInTheWriterDoesNotHoldTheTurnsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		step, release := make(chan struct{}), make(chan struct{})
		var mu sync.Mutex
		var ran []string
		eng := fakeEngine{script: func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			ran = append(ran, tr.Prompt)
			mu.Unlock()
			if tr.Prompt == "work" {
				<-step
			}
			tr.Complete("done")
		}, opts: []enginetest.Option{enginetest.WithSteerPause(func(written bool) {
			if written {
				<-release // the write in flight, for minutes
			}
		})}}
		front := &steerFront{recorder: &recorder{}, stages: map[int][]chat.SteerStage{}}
		core, store, submit := steerCore(t, eng, everyone{}, front)
		submit(1, 10, "work")
		synctest.Wait()
		submit(2, 11, "also this")
		errc := make(chan error, 1)
		go func() { errc <- core.Steer(ctx, "7", 11) }()
		synctest.Wait()
		close(step) // the turn answers; its end waits for the Steer
		synctest.Wait()
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		front.mu.Lock()
		got := slices.Clone(front.stages[11])
		front.mu.Unlock()
		if !slices.Equal(got, []chat.SteerStage{chat.SteerNext}) {
			t.Errorf("before the line went through, the frontend was told %v; want it runs next (the turn's end did not wait)", got)
		}
		close(release)
		synctest.Wait()
		if err := <-errc; err != nil {
			t.Errorf("Steer: %v", err)
		}
		submit(3, 12, "and then")
		synctest.Wait()
		mu.Lock()
		if !slices.Equal(ran, []string{"work", "also this", "and then"}) {
			t.Errorf("turns %q; want the steered message run once, then the next", ran)
		}
		mu.Unlock()
		front.mu.Lock()
		if got := front.stages[11]; !slices.Equal(got, []chat.SteerStage{chat.SteerNext}) {
			t.Errorf("the frontend was told %v, want only that it runs next", got)
		}
		front.mu.Unlock()
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
