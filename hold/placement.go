package hold

import (
	"context"
	"fmt"
	"time"

	"github.com/untether/untether/host"
)

// Placement says where an agent's holder runs and how long it waits: what
// every engine that holds its sessions (runner for Claude Code, codex)
// needs alike; each adds its own knobs around it.
type Placement struct {
	// Self is the untether binary the holder runs (`Self hold`), on the
	// agent's machine.
	Self string
	// Root is the folder (0700) the holders' folders are made in, there.
	Root string
	// Place, when set, gives Self and Root instead, when a holder is
	// started or reached: on another machine they are known once it is
	// (the agent's binary and folder there).
	Place func(ctx context.Context) (self, root string, err error)
	// Orphan is how long a holder waits for a bot before it ends the agent.
	Orphan time.Duration
}

// Where gives Self and Root, from Place when it is set.
func (p Placement) Where(ctx context.Context) (self, root string, err error) {
	if p.Place == nil {
		return p.Self, p.Root, nil
	}
	self, root, err = p.Place(ctx)
	if err != nil {
		return "", "", fmt.Errorf("where the holder runs: %w", err)
	}
	return self, root, nil
}

// Reach attaches to the holder of h, replaying from record from: at its
// socket on this machine, or, with bridge, through a bridge started on on
// (DialVia), as Self there.
func (p Placement) Reach(ctx context.Context, on host.Host, bridge bool, h Handle, from uint64) (*Client, error) {
	if !bridge {
		return Dial(ctx, h.Sock(), h.Secret, from)
	}
	self, _, err := p.Where(ctx)
	if err != nil {
		return nil, err
	}
	return DialVia(ctx, on, self, h, from)
}
