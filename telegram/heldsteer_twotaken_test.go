package telegram_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/view"
)

// Found by review: two messages steered into "work", neither taken: Claude runs each as a
// turn of its own after work's answer. The bot stops during the first's
// run (taken over) and starts again, link up. The second must run once.
func TestHeldTwoSteeredTakenOverRunOnceAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		step, later := make(chan struct{}), make(chan struct{})
		var mu sync.Mutex
		var ran []string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			ran = append(ran, tr.Prompt)
			mu.Unlock()
			if tr.Prompt == "work" {
				<-step
			} else {
				<-later
			}
			tr.Complete("done: " + tr.Prompt)
		})
		h.engine = heldSteerEngine{newHeldEngine(h.eng)}
		synctest.Wait()
		h.stop()
		h.start()
		h.say("work")
		synctest.Wait()
		for _, m := range []string{"also this", "and that"} {
			h.say(m)
			note := h.awaitPrompt(h.dm.ID, "⚡ Send now", "Queued")
			if got := h.toast(h.press(h.user, h.dm, note, "⚡ Send now")); got != view.ToastSteered {
				t.Fatalf("toast = %q", got)
			}
			synctest.Wait()
		}
		close(step)
		h.awaitText(h.dm.ID, "done: work")
		synctest.Wait()
		h.stop()
		synctest.Wait()
		h.start()
		synctest.Wait()
		close(later)
		h.awaitText(h.dm.ID, "done: and that")
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(ran)
		mu.Unlock()
		if !slices.Equal(got, []string{"work", "also this", "and that"}) {
			t.Errorf("turns run = %q, want each once", got)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}
