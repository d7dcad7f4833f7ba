package telegram_test

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/telegram/view"
)

// steerRig is a Claude whose turn for "work" waits for the test (step),
// then takes what was steered into it (when take) and answers with it;
// every other prompt is answered at once. prompts lists the turns run.
type steerRig struct {
	h       *harness
	step    chan struct{}
	mu      sync.Mutex
	prompts []string
}

func newSteerRig(t *testing.T, take bool) *steerRig {
	r := &steerRig{step: make(chan struct{})}
	r.h = newHarness(t, func(tr *enginetest.Turn) {
		tr.Start("m")
		r.mu.Lock()
		r.prompts = append(r.prompts, tr.Prompt)
		r.mu.Unlock()
		if tr.Prompt != "work" {
			tr.Complete("done: " + tr.Prompt)
			return
		}
		select {
		case <-r.step:
		case <-tr.Interrupted():
			tr.Aborted()
			return
		}
		var got []string
		if take {
			got = tr.TakeSteered()
		}
		tr.Complete("done: work" + strings.Join(append([]string{""}, got...), " + "))
	})
	return r
}

func (r *steerRig) turns() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.prompts)
}

// "⚡ Send now" puts the queued message into the running turn, once: the
// turn's answer covers it, its note says so, no turn of its own runs it,
// and it leaves the stored queue. A second press and a forged one change
// nothing.
func TestSendNowJoinsTheRunningTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, true)
		h := r.h
		h.say("work")
		synctest.Wait()
		id := h.say("also this")
		note := h.awaitPrompt(h.dm.ID, "⚡ Send now", "Queued")
		if got := h.toast(h.press(h.user, h.dm, note, "⚡ Send now")); got != view.ToastSteered {
			t.Fatalf("toast = %q", got)
		}
		// A second press, and a forged one, find nothing waiting to send.
		again := h.tg.SendCallbackQuery(h.user, h.dm, note.ID, view.SteerPrefix+strconv.Itoa(id))
		forged := h.tg.SendCallbackQuery(h.user, h.dm, note.ID, view.SteerPrefix+"424242")
		if a, f := h.toast(again), h.toast(forged); a != view.ToastSteerGone || f != view.ToastSteerGone {
			t.Errorf("second press = %q, forged = %q; want both refused", a, f)
		}
		synctest.Wait()
		if got := h.eng.session(0).Steered(); len(got) != 1 {
			t.Fatalf("steered lines = %v, want 1", got)
		}
		close(r.step)
		h.awaitText(h.dm.ID, "done: work + also this")
		h.awaitResolved(h.dm.ID, note.ID, "Went into the running turn")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work"}) {
			t.Errorf("turns run = %q, want only the one that took the message", got)
		}
		if p, err := h.pending(telegram.SessionKey(h.dm.ID, 0)); err != nil || len(p) != 0 {
			t.Errorf("stored queue = %+v, %v; want empty", p, err)
		}
		if stale := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, note.ID, view.SteerPrefix+strconv.Itoa(id))); stale != view.ToastSteerIdle {
			t.Errorf("a press after the turn = %q", stale)
		}
		h.say("later")
		h.awaitText(h.dm.ID, "done: later")
		if got := r.turns(); !slices.Equal(got, []string{"work", "later"}) {
			t.Errorf("turns run = %q", got)
		}
	})
}

// A message steered into a turn that answers without taking it runs next,
// once: the agent runs it on its own and the bot takes that run over
// without sending it again; its note says it runs next.
func TestSendNowTooLateRunsNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, false)
		h := r.h
		h.say("work")
		synctest.Wait()
		h.say("first queued")
		h.say("also this")
		note := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			_, ok := findButton(m, "⚡ Send now")
			return ok && strings.Contains(m.Text, "2 ahead")
		})
		h.toast(h.press(h.user, h.dm, note, "⚡ Send now"))
		synctest.Wait()
		close(r.step)
		h.awaitText(h.dm.ID, "done: also this")
		h.awaitText(h.dm.ID, "done: first queued")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work", "also this", "first queued"}) {
			t.Errorf("turns run = %q, want the steered one right after the turn, once", got)
		}
		if s := h.eng.session(0); len(h.eng.starts()) != 1 || len(s.Steered()) != 0 {
			t.Errorf("starts = %d, steered left = %v", len(h.eng.starts()), s.Steered())
		}
		said := slices.ContainsFunc(h.tg.CallsTo("editMessageText"), func(c tgtest.Call) bool {
			return c.Params["message_id"] == strconv.Itoa(note.ID) && strings.Contains(c.Params["text"], "runs next")
		})
		if !said {
			t.Error("the note never said the message runs next")
		}
	})
}

// /cancel drops a line the agent still holds: the message then runs as an
// ordinary queued one, once.
func TestCancelDropsASteeredLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, true)
		h := r.h
		h.say("work")
		synctest.Wait()
		h.say("also this")
		note := h.awaitPrompt(h.dm.ID, "⚡ Send now", "Queued")
		h.toast(h.press(h.user, h.dm, note, "⚡ Send now"))
		synctest.Wait()
		h.say("/cancel")
		h.awaitText(h.dm.ID, "done: also this")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work", "also this"}) {
			t.Errorf("turns run = %q", got)
		}
	})
}

// /steer on sends every message written mid-turn into the turn; an engine
// that cannot steer says so and shows no button.
func TestSteerSetting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, true)
		h := r.h
		h.say("/steer on")
		h.awaitText(h.dm.ID, "Steer is on")
		h.say("work")
		synctest.Wait()
		h.say("also this")
		synctest.Wait()
		close(r.step)
		h.awaitText(h.dm.ID, "done: work + also this")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work"}) {
			t.Errorf("turns run = %q", got)
		}
		h.say("/steer")
		h.awaitText(h.dm.ID, "Steer is on")
	})
}

// plainConn is a Conn without optional capabilities.
type plainConn struct{ engine.Conn }

func TestNoSteerWithoutTheCapability(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, true)
		h := r.h
		h.eng.mu.Lock()
		h.eng.wrap = func(_ engine.Spec, s *enginetest.Session) engine.Conn { return plainConn{s} }
		h.eng.mu.Unlock()
		h.say("work")
		synctest.Wait()
		h.say("/steer on")
		h.awaitText(h.dm.ID, "This engine cannot take a message into a running turn")
		h.say("also this")
		note := h.awaitText(h.dm.ID, "Queued")
		if len(note.Keyboard) != 0 {
			t.Errorf("the note of an engine that cannot steer has buttons: %v", buttonTexts(note))
		}
		close(r.step)
		h.awaitText(h.dm.ID, "done: also this")
	})
}
