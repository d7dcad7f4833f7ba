package telegram_test

import (
	"context"
	"strings"
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
type pendingSendEngine struct{ *heldEngine }

type pendingSendConn struct{ *heldConn }

func (e pendingSendEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.heldEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return pendingSendConn{c.(*heldConn)}, nil
}

func (e pendingSendEngine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	c, err := e.heldEngine.Reattach(ctx, spec, handle, from)
	if err != nil {
		return nil, err
	}
	return pendingSendConn{c.(*heldConn)}, nil
}

func (c pendingSendConn) Send(ctx context.Context, text string) error {
	if strings.Contains(text, "second") && c.sentAt.Load() != 0 { // the first bot's Send, not the restarted one's
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
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Complete("answer to " + tr.Prompt)
		})
		h.engine = pendingSendEngine{newHeldEngine(h.eng)}
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
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("%d sessions started, want 1 (the held one carried on)", n)
		}
		h.stop()
		for i := range h.eng.starts() {
			_ = h.eng.session(i).Close(context.Background())
		}
	})
}
