package codex

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

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

// interruptsWritten is the turn ids of the turn/interrupt lines written,
// each answered as Codex does.
func interruptsWritten(c *Conn, w *slowWriter) []string {
	var ids []string
	for _, m := range w.lines() {
		if m.Method != "turn/interrupt" {
			continue
		}
		var p struct {
			TurnID string `json:"turnId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		ids = append(ids, p.TurnID)
		c.rpc.response(message{ID: m.ID, Result: json.RawMessage(`{}`)})
	}
	return ids
}

// An Interrupt (the user's Cancel) while the turn/start is taken as
// started but its turn's id is not known yet (the line still waits for a
// held Codex's link) is not lost: turn/interrupt needs the id, and it goes
// as soon as the id is known, from turn/started or from the late answer.
// Before, Interrupt returned nil and sent nothing, and the core cancels
// once: the turn ran whole.
func TestInterruptBeforeTheTurnHasItsIdIsSentOnceItHas(t *testing.T) {
	for _, known := range []struct {
		name string
		line string
	}{
		{"turn/started", `{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu1"}}}`},
		{"late answer", `{"id":1,"result":{"turn":{"id":"tu1","status":"inProgress"}}}`},
	} {
		t.Run(known.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, w := slowRig()
				defer c.rpc.ended(errors.New("test over"))
				if err := c.Send(t.Context(), "do it"); err != nil {
					t.Fatalf("Send = %v, want nil (taken as started)", err)
				}
				if err := c.Interrupt(t.Context()); err != nil {
					t.Fatalf("Interrupt = %v", err)
				}
				close(w.release) // the link is back
				synctest.Wait()
				if got := interruptsWritten(c, w); len(got) != 0 {
					t.Fatalf("turn/interrupt for %q before the turn's id was known", got)
				}
				c.handle([]byte(known.line))
				synctest.Wait()
				if got := interruptsWritten(c, w); !slices.Equal(got, []string{"tu1"}) {
					t.Errorf("turn/interrupt written for %q, want once for tu1", got)
				}
				// The next turn starts clean: nothing is interrupted for it.
				c.handle([]byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu1","status":"interrupted"}}}`))
				go func() { _ = c.Send(t.Context(), "next") }()
				synctest.Wait()
				c.handle([]byte(`{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu2"}}}`))
				synctest.Wait()
				if got := interruptsWritten(c, w); !slices.Equal(got, []string{"tu1"}) {
					t.Errorf("turn/interrupt written for %q, want only tu1's", got)
				}
			})
		})
	}
}

// The late answer to a turn/start is handled by the reader as it reads it,
// in order with Codex's other lines: its turn's id is the running turn's
// at once, and once that turn completed and the next turn/start went, the
// old answer cannot name the new turn. Before, a goroutine of its own
// handled it, which could run after the next Send.
func TestLateTurnStartAnswerIsHandledInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over"))
		close(w.release)
		if err := c.Send(t.Context(), "one"); err != nil { // written, not answered in time
			t.Fatalf("Send = %v, want nil (taken as started)", err)
		}
		c.handle([]byte(`{"id":1,"result":{"turn":{"id":"tu1","status":"inProgress"}}}`))
		c.mu.Lock()
		turn := c.turn
		c.mu.Unlock()
		if turn != "tu1" {
			t.Errorf("the turn is %q right after its late answer was read, want tu1", turn)
		}
		c.handle([]byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu1","status":"completed"}}}`))
		go func() { _ = c.Send(t.Context(), "two") }()
		synctest.Wait()
		c.mu.Lock()
		turn, running := c.turn, c.running
		c.mu.Unlock()
		if !running || turn != "" {
			t.Errorf("turn two is %q (running %v), want running with its id not known yet", turn, running)
		}
	})
}
