package codex

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/hold"
)

// A turn/start Send took as started while its line still waits for the
// holder (the link is down) has no record yet: SentAt says none, not the
// previous turn/start's record. A bot that stops then and restarts would
// replay that previous turn as this one's and never run the new prompt.
func TestSentAtIsNoneWhileTheTurnStartWaitsForTheHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over"))
		c.held = &heldWire{Link: hold.NewLink(&hold.Client{}, nil)}
		c.held.sentAt.Store(7) // the previous turn/start's record
		h := HeldConn{c}
		if err := c.Send(t.Context(), "second"); err != nil {
			t.Fatalf("Send = %v, want nil (taken as started)", err)
		}
		if got := h.SentAt(); got != 0 {
			t.Errorf("SentAt = %d while the turn/start waits for the holder, want 0 (not the previous turn's 7)", got)
		}
		close(w.release)
		synctest.Wait()
		if ls := w.lines(); len(ls) != 1 || ls[0].Method != "turn/start" {
			t.Errorf("written %v, want the turn/start", ls)
		}
	})
}

// keep time imported for the tests below.
var _ = time.Second
