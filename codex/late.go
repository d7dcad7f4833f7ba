package codex

import (
	"encoding/json"

	"github.com/untether/untether/engine"
)

// startAnsweredLate is what Codex answered to a turn/start after Send
// stopped waiting (a held Codex's link was down past the request
// timeout), Send having taken it as started: accepted, the turn is known
// by its id (unless turn/started said it); refused, no turn runs, and
// the turn ends failed so that the bot does not wait for it. It runs on
// the reader's goroutine (rpc.unanswered), in order with Codex's lines: a
// turn/completed read before it has ended the turn (c.running false).
func (c *Conn) startAnsweredLate(result json.RawMessage, err error) {
	c.mu.Lock()
	if err == nil {
		var res struct {
			Turn struct {
				ID string `json:"id"`
			} `json:"turn"`
		}
		if json.Unmarshal(result, &res) == nil && c.turn == "" && c.running {
			c.turnKnownLocked(res.Turn.ID)
		}
		c.mu.Unlock()
		return
	}
	if !c.running || c.turn != "" {
		c.mu.Unlock()
		return
	}
	c.running, c.interruptWanted = false, false
	tc := engine.TurnCompleted{SessionID: c.thread, Reason: "failed", Outcome: engine.OutcomeFailed, ErrorText: c.o.Redact(err.Error()), NumTurns: 1}
	c.mu.Unlock()
	c.log.Warn("codex refused a turn/start late: the turn failed", "err", err)
	c.queue.Push(tc)
}
