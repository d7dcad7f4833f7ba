package chat

import (
	"context"
	"fmt"
	"time"
)

// Recovery after a restart, in two steps around the frontends' own:
// Reattach first (held processes whose turns go on), then the frontends
// settle the messages a stopped bot left live, then ResumeQueued runs what
// was accepted but not run.

// Reattach attaches to every held process the state file lists. going are
// the conversations whose turn goes on (their live messages are left
// alone); gone says, for those whose turn cannot, why.
func (c *Core) Reattach(ctx context.Context) (going map[string]bool, gone map[string]HeldStop) {
	return c.reattach(ctx)
}

// ResumeQueued queues the messages accepted before the restart and not run
// yet. One older than MaxBacklogAge (and typed: a scheduled run is never
// stale) is not run, and its conversation is told.
func (c *Core) ResumeQueued() error {
	pending, err := c.store.AllPendingPrompts()
	if err != nil {
		return fmt.Errorf("read queued prompts: %w", err)
	}
	for _, qp := range pending {
		pl := Place{ChatID: qp.ChatID, Thread: qp.ThreadID}
		a := c.sessionFor(qp.Key, pl)
		if !a.resumeSteered(&qp) {
			continue // the agent took it into its turn
		}
		// One the agent still holds (marked) runs whatever its age.
		if age := time.Since(qp.Date); age > c.cfg.MaxBacklogAge && qp.Origin == nil && qp.SteerID == "" {
			c.note(qp.Key, pl, qp.MessageID, NoteSkipped{Age: age})
			if err := c.store.DonePrompt(qp.Key, qp.Seq); err != nil {
				return fmt.Errorf("drop stale prompt: %w", err)
			}
			continue
		}
		c.log.Info("running a message accepted before the restart", "chat_id", qp.ChatID, "update_id", qp.UpdateID)
		a.enqueue(qp)
	}
	return nil
}
