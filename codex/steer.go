package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/untether/untether/engine"
)

// Steering (engine.Steerer): turn/steer adds a user message to the running
// turn, under the bot's id (clientUserMessageId). Codex echoes the id as
// the clientId of the userMessage item it records when the model takes
// the message in (PromptStarted). One the turn ended without taking is
// reported dropped (PromptCancelled) before the turn's end: Codex does not
// run it on its own, so the bot runs it as its next turn.

var _ engine.Steerer = (*Conn)(nil)

// Steer implements engine.Steerer.
func (c *Conn) Steer(ctx context.Context, id, text string) error {
	c.mu.Lock()
	thread, turn := c.thread, c.turn
	if turn == "" {
		c.mu.Unlock()
		return errors.New("codex: no turn running to steer")
	}
	if c.steered == nil {
		c.steered = map[string]bool{}
	}
	c.steered[id] = true
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	err := c.rpc.callLate(ctx, "turn/steer", map[string]any{"threadId": thread, "expectedTurnId": turn, "clientUserMessageId": id,
		"input": []map[string]any{{"type": "text", "text": text}}}, nil, func(_ json.RawMessage, err error) {
		if err != nil {
			c.steerRefused(id, err)
		}
	})
	if errors.Is(err, errUnanswered) {
		// Codex may have it (engine.Steerer: an error says it has not):
		// its userMessage reports it taken, the turn's end or a late
		// refusal dropped.
		c.log.Warn("codex did not answer turn/steer in time: taken as sent", "err", err)
		return nil
	}
	if err != nil {
		c.mu.Lock()
		delete(c.steered, id)
		c.mu.Unlock()
		return fmt.Errorf("codex turn/steer: %w", err)
	}
	return nil
}

// steerRefused reports dropped a steered message Codex refused after
// Steer stopped waiting for its answer, unless the turn's end did.
func (c *Conn) steerRefused(id string, err error) {
	c.mu.Lock()
	ok := c.steered[id]
	delete(c.steered, id)
	c.mu.Unlock()
	if ok {
		c.log.Warn("codex refused a steered message late: dropped", "err", err)
		c.queue.Push(engine.PromptState{ID: id, Stage: engine.PromptCancelled})
	}
}

// steerTaken reports a steered message the model took in (its userMessage
// item, by clientId).
func (c *Conn) steerTaken(clientID string) {
	c.mu.Lock()
	ok := clientID != "" && c.steered[clientID]
	delete(c.steered, clientID)
	c.mu.Unlock()
	if ok {
		c.queue.Push(engine.PromptState{ID: clientID, Stage: engine.PromptStarted})
	}
}

// steerDropped reports, at a turn's end, the steered messages it did not
// take; c.mu is held.
func (c *Conn) steerDroppedLocked() []engine.Event {
	var out []engine.Event
	for id := range c.steered {
		out = append(out, engine.PromptState{ID: id, Stage: engine.PromptCancelled})
	}
	clear(c.steered)
	return out
}
