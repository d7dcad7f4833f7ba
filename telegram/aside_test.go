package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
)

// /btw while a turn runs is answered at once, marked as aside, and the
// turn goes on to its own answer without hearing it; when no turn runs,
// /btw is an ordinary prompt. An engine without questions aside says so.
func TestAsideDuringATurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var prompts []string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			prompts = append(prompts, tr.Prompt)
			if tr.Prompt == "long job" {
				<-release
			}
			tr.Complete("done: " + tr.Prompt)
		})
		h.eng.mu.Lock()
		h.eng.wrap = func(_ engine.Spec, s *enginetest.Session) engine.Conn {
			return enginetest.WithUndo(s, &enginetest.Checkpoints{})
		}
		h.eng.mu.Unlock()
		h.say("long job")
		synctest.Wait()
		h.say("/btw what is 2+2?")
		aside := h.awaitText(h.dm.ID, "aside: what is 2+2?")
		if !strings.Contains(aside.Text, "answered aside") {
			t.Errorf("the aside answer is not marked: %q", aside.Text)
		}
		close(release)
		h.awaitText(h.dm.ID, "done: long job")
		synctest.Wait()
		h.say("/btw and now?")
		h.awaitText(h.dm.ID, "done: and now?")
		if len(prompts) != 2 || prompts[1] != "and now?" {
			t.Errorf("prompts the agent got: %q, want the long job and the idle /btw", prompts)
		}
	})
}

func TestAsideWithoutTheCapability(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			<-release
			tr.Complete("done")
		})
		h.say("long job")
		synctest.Wait()
		h.say("/btw anything?")
		h.awaitText(h.dm.ID, "cannot answer a question aside")
		close(release)
		h.awaitText(h.dm.ID, "done")
	})
}
