package telegram_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
)

// pendingSendEngine: held conns whose Send of a prompt containing "second"
// behaves as Codex's on a held app-server whose ssh link is down: the
// turn/start waits for the holder, the request timeout passes and Send
// says nil (taken as started), SentAt saying none meanwhile (engine.Held).
// The bot then stops: Detach drops the line, which never reaches the
// holder.
type pendingSendEngine struct {
	*heldEngine
	// deadFirst: the first process has died between turns; its Send of
	// "second" fails (the core then starts a fresh one and sends there).
	deadFirst bool
	// pended is set once a Send of "second" was left waiting: the
	// restarted bot's goes through.
	pended *atomic.Bool
}

type pendingSendConn struct {
	*heldConn
	dead   bool
	pended *atomic.Bool
}

func (e pendingSendEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.heldEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return pendingSendConn{c.(*heldConn), e.deadFirst && len(e.starts()) == 1, e.pended}, nil
}

func (e pendingSendEngine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	c, err := e.heldEngine.Reattach(ctx, spec, handle, from)
	if err != nil {
		return nil, err
	}
	return pendingSendConn{c.(*heldConn), false, e.pended}, nil
}

func (c pendingSendConn) Send(ctx context.Context, text string) error {
	if !strings.Contains(text, "second") {
		return c.heldConn.Send(ctx, text)
	}
	if c.dead {
		c.Detach() // its events end with it
		return errors.New("write to the process: broken pipe")
	}
	if !c.pended.Swap(true) { // the first bot's Send, not the restarted one's
		c.sentAt.Store(0)
		time.Sleep(time.Minute) // Codex's request timeout
		return nil
	}
	return c.heldConn.Send(ctx, text)
}

// A prompt whose turn/start was taken as started but never reached the
// held Codex (the bot stopped while the link was down) runs after the
// restart, once; the previous turn's answer is not shown again as its
// reply.
func TestHeldPromptStillBeingWrittenAtStopRunsAfterTheRestart(t *testing.T) {
	t.Run("the same process", func(t *testing.T) { pendingSendAtStop(t, false, 1) })
	// The process died between turns and the prompt went to a fresh one:
	// the turn's record names that one's records, not the dead one's.
	t.Run("a fresh process", func(t *testing.T) { pendingSendAtStop(t, true, 2) })
}

func pendingSendAtStop(t *testing.T, deadFirst bool, starts int) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Complete("answer to " + tr.Prompt)
		})
		h.engine = pendingSendEngine{newHeldEngine(h.eng), deadFirst, new(atomic.Bool)}
		synctest.Wait()
		h.stop()
		h.start()
		h.say("first")
		h.awaitText(h.dm.ID, "answer to first")
		synctest.Wait()
		h.say("second")
		time.Sleep(time.Minute + time.Second) // Send took it as started
		synctest.Wait()
		h.stop()
		synctest.Wait()
		h.start()
		synctest.Wait()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := countIn(h, h.dm.ID, "answer to first"); n != 1 {
			t.Errorf("the first turn's answer was shown %d times, want once: %q", n, h.messages(h.dm.ID))
		}
		if n := countIn(h, h.dm.ID, "answer to second"); n != 1 {
			t.Errorf("\"second\" was answered %d times, want once: %q", n, h.messages(h.dm.ID))
		}
		if n := len(h.eng.starts()); n != starts {
			t.Errorf("%d sessions started, want %d (the held one carried on)", n, starts)
		}
		h.stop()
		for i := range h.eng.starts() {
			_ = h.eng.session(i).Close(context.Background())
		}
	})
}
