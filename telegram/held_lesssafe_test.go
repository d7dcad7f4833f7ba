package telegram_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// LessSafe implements engine.LessSafe.
func (c *heldConn) LessSafe() string { return c.lessSafe }

var _ engine.LessSafe = (*heldConn)(nil)

// setLessSafe makes the conns Reattach hands out say that their process
// was started less safe than the config asks (a runner's held Claude
// started with project_settings = true, re-attached by a bot with false).
func (e *heldEngine) setLessSafe(why string) {
	e.mu.Lock()
	e.lessSafe = why
	e.mu.Unlock()
}

// endAll stops the bot and ends every Claude the test started: held,
// they outlive the bot.
func endAll(h *harness) {
	h.stop()
	for i := range h.eng.starts() {
		_ = h.eng.session(i).Close(context.Background())
	}
}

// A held Claude started less safe than the restarted bot's config asks
// (the project's own settings trusted then, not now) finishes the turn it
// runs, its answer once, and serves no other: it is ended after the turn,
// and the next message starts a new Claude that resumes the conversation.
func TestHeldStartedLessSafeEndsAfterItsTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Working on it", Partial: true})
			<-release // the bot stops and starts again meanwhile
			tr.Complete("answer to " + tr.Prompt)
		})
		he := newHeldEngine(h.eng)
		h.engine = he
		defer endAll(h)
		synctest.Wait()
		h.stop()
		h.start()
		m := h.say("first")
		h.tg.AwaitMessage(wait, h.dm.ID, func(msg tgtest.Message) bool { return msg.ReplyTo == m })
		h.stop()
		synctest.Wait()
		he.setLessSafe("the project's own settings run their programs")
		h.start()
		synctest.Wait()
		close(release)
		h.awaitText(h.dm.ID, "answer to first")
		synctest.Wait()
		old := h.eng.session(0)
		select {
		case <-old.Done():
		default:
			t.Error("the held Claude started less safe still runs after its turn")
		}
		if lines := h.logs.lines("level=WARN", "held claude", "less safe"); len(lines) == 0 {
			t.Error("no warning in the log")
		}
		h.say("second")
		h.awaitText(h.dm.ID, "answer to second")
		starts := h.eng.starts()
		if len(starts) != 2 {
			t.Errorf("claude started %d times, want twice (the next turn in a new process)", len(starts))
		} else if starts[1].Resume != old.SessionID() {
			t.Errorf("the new process resumes %q, want the conversation %q", starts[1].Resume, old.SessionID())
		}
		answers := 0
		for _, text := range h.messages(h.dm.ID) {
			if strings.Contains(text, "answer to first") {
				answers++
			}
		}
		if answers != 1 {
			t.Errorf("the held turn's answer came %d times", answers)
		}
	})
}

// Between turns nothing is lost by ending it: a held Claude started less
// safe than asked is ended as the bot starts, its record forgotten, and
// the next message resumes the conversation in a new Claude.
func TestHeldStartedLessSafeIdleEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) { tr.Complete("answer to " + tr.Prompt) })
		he := newHeldEngine(h.eng)
		h.engine = he
		defer endAll(h)
		synctest.Wait()
		h.stop()
		h.start()
		h.say("first")
		h.awaitText(h.dm.ID, "answer to first")
		synctest.Wait()
		h.stop()
		synctest.Wait()
		he.setLessSafe("started by a bot that did not record how")
		h.start()
		synctest.Wait()
		old := h.eng.session(0)
		select {
		case <-old.Done():
		default:
			t.Error("the idle held Claude started less safe still runs")
		}
		if held, err := h.store.ListHeld(); err != nil || len(held) != 0 {
			t.Errorf("held after the restart: %+v %v", held, err)
		}
		h.say("second")
		h.awaitText(h.dm.ID, "answer to second")
		starts := h.eng.starts()
		if len(starts) != 2 || starts[1].Resume != old.SessionID() {
			t.Errorf("starts %+v, want a second one resuming %q", starts, old.SessionID())
		}
	})
}
