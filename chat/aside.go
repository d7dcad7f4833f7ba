package chat

import (
	"context"
	"errors"

	"github.com/untether/untether/engine"
)

var (
	// ErrNotRunning: no turn runs, so a question aside is an ordinary
	// prompt.
	ErrNotRunning = errors.New("no turn is running")
	// ErrNoAside: the conversation's engine cannot answer aside.
	ErrNoAside = errors.New("this engine cannot answer a question aside")
)

// Aside answers question while the conversation's turn runs, from a model
// call of the agent's own that neither this turn nor later ones see
// (engine.SideAsker). It never waits behind the turn.
func (c *Core) Aside(ctx context.Context, key, question string) (string, error) {
	a := c.existing(key)
	if a == nil || !a.turnRunning() {
		return "", ErrNotRunning
	}
	conn := a.liveConn()
	if conn == nil {
		return "", ErrNotRunning // still starting: nothing to ask aside of yet
	}
	sa, ok := conn.(engine.SideAsker)
	if !ok {
		return "", ErrNoAside
	}
	answer, err := sa.Aside(ctx, question)
	if err != nil {
		return "", err
	}
	return c.redact(answer), nil
}

// turnRunning says whether a turn runs now (queued messages aside).
func (a *session) turnRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn != nil && !a.turn.answered.Load()
}
