package telegram_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
)

// pendingSteerEngine: held sessions whose Steer behaves as runner's (or
// Codex's) on a held session whose ssh link is down: the line waits for
// the holder until the caller's context ends, and Steer says nil (taken as
// sent). The bot then stops: Detach drops the line, which never reaches
// the holder's journal. A conn a restarted bot re-attached steers as
// usual: its link is up.
type pendingSteerEngine struct{ *heldEngine }

type pendingSteerConn struct {
	heldSteer
	linkDown bool
}

func (e pendingSteerEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.heldEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return pendingSteerConn{heldSteer{c.(*heldConn)}, true}, nil
}

func (e pendingSteerEngine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	c, err := e.heldEngine.Reattach(ctx, spec, handle, from)
	if err != nil {
		return nil, err
	}
	return pendingSteerConn{heldSteer{c.(*heldConn)}, false}, nil
}

func (c pendingSteerConn) Steer(ctx context.Context, id, text string) error {
	if !c.linkDown {
		return c.heldSteer.Steer(ctx, id, text)
	}
	<-ctx.Done()
	return nil
}

// A message steered while the held agent's link was down, whose line the
// bot's stop dropped before it reached the holder, is not followed after
// the restart as one the agent holds (its replay lacks the line): it runs
// once: as an ordinary queued message after the adopted turn, or steered
// into it again over the link that is up now. Before, the
// restarted bot marked it "runs next" and waited for a run that never
// came.
func TestHeldSteerStillBeingWrittenAtStopRunsAfterTheRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newSteerRig(t, true)
		h := r.h
		h.engine = pendingSteerEngine{newHeldEngine(h.eng)}
		synctest.Wait()
		h.stop()
		h.start()
		h.say("/steer on")
		synctest.Wait()
		h.say("work")
		synctest.Wait()
		h.say("also this")
		time.Sleep(11 * time.Second) // autoSteer's bound passes: taken as sent
		synctest.Wait()
		h.stop() // the line is still waiting: Detach drops it
		synctest.Wait()
		h.start()
		synctest.Wait()
		close(r.step)
		synctest.Wait()
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		// Which depends on whether the restarted bot queues it before or
		// after the replay: steer is on, so queued first it goes into the
		// adopted turn again, over a link that is up now.
		own, joined := countIn(h, h.dm.ID, "done: also this"), countIn(h, h.dm.ID, "done: work + also this")
		if own+joined != 1 {
			t.Errorf("\"also this\" ran %d times on its own and %d times in the turn, want once in all: %q", own, joined, h.messages(h.dm.ID))
		}
		if got := r.turns(); len(got) > 2 || own == 1 && !slices.Equal(got, []string{"work", "also this"}) {
			t.Errorf("turns run %q", got)
		}
		if n := countIn(h, h.dm.ID, "⏳ working"); n != 0 {
			t.Errorf("a turn still waits: %q", h.messages(h.dm.ID))
		}
		h.stop()
		for i := range h.eng.starts() {
			_ = h.eng.session(i).Close(context.Background())
		}
	})
}
