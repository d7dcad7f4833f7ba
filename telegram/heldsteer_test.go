package telegram_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/view"
)

// heldSteerEngine makes the held sessions take steered lines, journaled
// as runner's held Session journals them: no prompt, and a line the
// session runs after its turn's result moves SentAt to its own turn.
type heldSteerEngine struct{ *heldEngine }

type heldSteer struct{ *heldConn }

func (e heldSteerEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.heldEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return heldSteer{c.(*heldConn)}, nil
}

func (e heldSteerEngine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	c, err := e.heldEngine.Reattach(ctx, spec, handle, from)
	if err != nil {
		return nil, err
	}
	return heldSteer{c.(*heldConn)}, nil
}

func (c heldSteer) Steer(ctx context.Context, id, text string) error {
	c.p.add(heldRecord{steer: id})
	return c.p.s.Steer(ctx, id, text)
}

// SentAt is the last prompt's record, or where the run of a steered line
// begins when that is later: the record after the result of the turn it
// missed, then its own start.
func (c heldSteer) SentAt() uint64 {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	var at uint64
	turning, pending := false, map[string]bool{}
	for i, r := range c.p.journal {
		rec := uint64(i + 1)
		switch e := r.ev.(type) {
		case nil:
			if r.prompt {
				turning = true
			} else {
				pending[r.steer] = true
			}
		case engine.TurnCompleted:
			turning = false
			if len(pending) > 0 {
				at = rec + 1
			}
		case engine.PromptState:
			if e.Stage == engine.PromptStarted && !turning {
				turning, at = true, rec
			}
			if e.Stage != engine.PromptQueued {
				delete(pending, e.ID)
			}
		}
	}
	return max(at, c.heldConn.SentAt())
}

// sendNow runs "work" and sends "also this" into it with Send now.
func sendNow(t *testing.T, h *harness) {
	t.Helper()
	h.say("work")
	synctest.Wait()
	h.say("also this")
	note := h.awaitPrompt(h.dm.ID, "⚡ Send now", "Queued")
	if got := h.toast(h.press(h.user, h.dm, note, "⚡ Send now")); got != view.ToastSteered {
		t.Fatalf("toast = %q", got)
	}
	synctest.Wait()
}

// countIn counts the messages of the chat that contain want.
func countIn(h *harness, chatID int64, want string) int {
	n := 0
	for _, text := range h.messages(chatID) {
		n += strings.Count(text, want)
	}
	return n
}

// steerAcrossRestart: "work" runs held; "also this" is sent into it with
// Send now; the bot stops and starts again (gone: its Claude died
// meanwhile) before the turn takes the line.
func steerAcrossRestart(t *testing.T, take, gone bool) *steerRig {
	r := newSteerRig(t, take)
	h := r.h
	h.engine = heldSteerEngine{newHeldEngine(h.eng)}
	synctest.Wait()
	h.stop()
	h.start()
	sendNow(t, h)
	h.stop()
	synctest.Wait()
	if gone {
		_ = h.eng.session(0).Close(context.Background())
		h.engine = heldSteerEngine{newHeldEngine(h.eng)}
	}
	h.start()
	synctest.Wait()
	return r
}

// The steered line joins the held turn after the restart: the answer
// covers it, and it never runs as a turn of its own (the stored queue
// brought it back as an ordinary message before).
func TestHeldSteerJoinsAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := steerAcrossRestart(t, true, false)
		h := r.h
		close(r.step)
		h.awaitText(h.dm.ID, "done: work + also this")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work"}) {
			t.Errorf("turns run = %q, want only the one that took the message", got)
		}
		if q, err := h.store.AllPendingPrompts(); err != nil || len(q) != 0 {
			t.Errorf("stored queue = %+v %v, want empty", q, err)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}

// The held turn answers without taking the line: Claude runs it next on
// its own, and the bot's next turn is that run, not a second one; a
// further restart during that run sends it again neither.
func TestHeldSteerRunsNextAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := steerAcrossRestart(t, false, false)
		h := r.h
		close(r.step)
		h.awaitText(h.dm.ID, "done: also this")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work", "also this"}) {
			t.Errorf("turns run = %q, want the message once, after work", got)
		}
		if n := countIn(h, h.dm.ID, "done: also this"); n != 1 {
			t.Errorf("the steered message was answered %d times", n)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}

// Its Claude gone with the restart, the steered message runs once from the
// queue as an ordinary one (the mark of the steer goes).
func TestHeldSteerGoneRunsFromTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := steerAcrossRestart(t, true, true)
		h := r.h
		h.awaitText(h.dm.ID, "done: also this")
		synctest.Wait()
		if got := r.turns(); !slices.Equal(got, []string{"work", "also this"}) {
			t.Errorf("turns run = %q, want the message once on a new claude", got)
		}
		if q, err := h.store.AllPendingPrompts(); err != nil || len(q) != 0 {
			t.Errorf("stored queue = %+v %v, want empty", q, err)
		}
		close(r.step)
		h.stop()
		_ = h.eng.session(1).Close(context.Background())
	})
}

// The bot stops while Claude runs a steered message on its own (the turn
// it was sent into had answered) and the bot's turn took that run over:
// the bot started next carries that turn on and does not send the message
// again, though the replay holds no prompt of it (HeldTurn.Steered).
func TestHeldTakenOverTurnIsNotSentAgain(t *testing.T) {
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
				<-later // the bot stops and starts again meanwhile
			}
			tr.Complete("done: " + tr.Prompt)
		})
		h.engine = heldSteerEngine{newHeldEngine(h.eng)}
		synctest.Wait()
		h.stop()
		h.start()
		sendNow(t, h)
		close(step) // work answers without taking the line: it runs next
		h.awaitText(h.dm.ID, "done: work")
		synctest.Wait()
		h.stop()
		synctest.Wait()
		h.start()
		synctest.Wait()
		close(later)
		h.awaitText(h.dm.ID, "done: also this")
		synctest.Wait()
		mu.Lock()
		got := slices.Clone(ran)
		mu.Unlock()
		if !slices.Equal(got, []string{"work", "also this"}) {
			t.Errorf("turns run = %q, want the message once", got)
		}
		for _, want := range []string{"done: work", "done: also this"} {
			if n := countIn(h, h.dm.ID, want); n != 1 {
				t.Errorf("%q came %d times", want, n)
			}
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}
