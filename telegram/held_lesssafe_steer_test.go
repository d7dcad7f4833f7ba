package telegram_test

import (
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
)

// A held Claude started less safe finishes its turn and serves no new
// one: a message sent meanwhile (here with /steer on, so it would go into
// the running turn; the "Queued" note offers no "⚡ Send now" either)
// waits for the fresh process instead of going into the less-safe one,
// where the CLI could run it as its next turn. Found by review: steer
// checked no LessSafe.
func TestHeldStartedLessSafeTakesNoSteeredMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Working on it", Partial: true})
			if tr.Prompt == "first" {
				<-release
			}
			tr.Complete("answer to " + tr.Prompt)
		})
		he := newHeldEngine(h.eng)
		h.engine = heldSteerEngine{he}
		defer endAll(h)
		synctest.Wait()
		h.stop()
		h.start()
		h.say("/steer on")
		synctest.Wait()
		h.say("first")
		synctest.Wait()
		h.stop()
		synctest.Wait()
		he.setLessSafe("the project's own settings run their programs")
		h.start()
		synctest.Wait()
		h.say("second")
		synctest.Wait()
		old := h.eng.session(0)
		steeredIntoOld := false
		he.mu.Lock()
		for _, p := range he.procs {
			if p.s == old {
				p.mu.Lock()
				for _, r := range p.journal {
					if r.steer != "" {
						steeredIntoOld = true
					}
				}
				p.mu.Unlock()
			}
		}
		he.mu.Unlock()
		close(release)
		synctest.Wait()
		if steeredIntoOld {
			t.Error("a new message went into the held Claude started less safe")
		}
		h.awaitText(h.dm.ID, "answer to second")
	})
}
