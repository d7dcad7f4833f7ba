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

// "⚡ Send now" pressed as the turn ends, whether the turn ends before the
// message reaches the engine (the core still marking it steered in the
// state file) or while it is being written: the message runs once, as the
// next turn, the stored queue empties and the chat takes its next message.
// An engine like Codex (a steer with no turn running refused, what the turn
// did not take dropped at its end) leaves it to the bot's queue: the
// frontend is never told it went into the turn or runs on its own. Claude
// runs a line written after its answer on its own: the frontend is told it
// was sent, then that it runs next.
func TestSendNowAsTheTurnEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		codex   bool
		written bool // where the Steer stands when the turn ends
	}{{"codex before the write", true, false}, {"codex while written", true, true},
		{"claude before the write", false, false}, {"claude while written", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { sendNowAsTurnEnds(t, tc.codex, tc.written) })
		})
	}
}

func sendNowAsTurnEnds(t *testing.T, codex, written bool) {
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
	}, opts: []enginetest.Option{enginetest.WithSteerPause(func(w bool) {
		if w == written {
			<-release
		}
	})}}
	if codex {
		eng.opts = append(eng.opts, enginetest.LikeCodex())
	}
	front := &steerFront{recorder: &recorder{}, stages: map[int][]chat.SteerStage{}}
	core, store, submit := steerCore(t, eng, everyone{}, front)
	submit(1, 10, "work")
	synctest.Wait()
	submit(2, 11, "also this")
	errc := make(chan error, 1)
	go func() { errc <- core.Steer(ctx, "7", 11) }()
	synctest.Wait() // the Steer waits in the engine, at the instant chosen
	close(step)     // the turn answers without taking the message
	synctest.Wait()
	close(release) // the Steer goes on: refused (no turn) or accepted and dropped
	synctest.Wait()
	if err := <-errc; codex && !written && err == nil {
		t.Error("Steer reported a message Codex refused as sent")
	} else if (!codex || written) && err != nil {
		t.Errorf("Steer of a message the engine accepted: %v", err)
	}
	submit(3, 12, "and then")
	synctest.Wait()
	mu.Lock()
	if !slices.Equal(ran, []string{"work", "also this", "and then"}) {
		t.Errorf("turns %q; want the steered message run once, then the next", ran)
	}
	mu.Unlock()
	front.mu.Lock()
	if got := front.stages[11]; codex && len(got) > 0 || !codex && !slices.Equal(got, []chat.SteerStage{chat.SteerSent, chat.SteerNext}) {
		t.Errorf("the frontend was told %v", got)
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
}
