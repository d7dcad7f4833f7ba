package telegram_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

// slowAside answers a question aside only when released (or gives up with
// its context).
type slowAside struct {
	enginetest.Undoable
	release chan struct{}
}

func (s slowAside) Aside(ctx context.Context, q string) (string, error) {
	select {
	case <-s.release:
		return s.Undoable.Aside(ctx, q)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// A side question that takes its time does not hold the chat's commands:
// /status right after /btw is answered at once, a second question waits
// for the first (one at a time), and the answer still comes when the agent
// gives it.
func TestAsideDoesNotHoldTheChatsCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release, answer := make(chan struct{}), make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			<-release
			tr.Complete("done: " + tr.Prompt)
		})
		h.eng.mu.Lock()
		h.eng.wrap = func(_ engine.Spec, s *enginetest.Session) engine.Conn {
			return slowAside{enginetest.WithUndo(s, &enginetest.Checkpoints{}), answer}
		}
		h.eng.mu.Unlock()
		h.say("long job")
		synctest.Wait()
		h.say("/btw what is 2+2?")
		synctest.Wait()
		asked := time.Now()
		h.say("/status")
		synctest.Wait()
		if !slices.ContainsFunc(h.messages(h.dm.ID), func(m string) bool { return strings.Contains(m, "Status") }) {
			t.Error("/status waits behind the question aside")
		}
		if waited := time.Since(asked); waited != 0 {
			t.Errorf("/status answered after %v, want at once", waited)
		}
		h.say("/btw and 3+3?")
		h.awaitText(h.dm.ID, "still being answered")
		close(answer)
		h.awaitText(h.dm.ID, "aside: what is 2+2?")
		close(release)
		h.awaitText(h.dm.ID, "done: long job")
	})
}
