package telegram

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/untether/untether/runner"
)

// Conn is one live Claude session as the bot sees it. *runner.Session
// implements it; tests and the load command plug in scripted fakes.
type Conn interface {
	Events() <-chan runner.Event
	Send(ctx context.Context, text string) error
	Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error
	Deny(ctx context.Context, requestID, message string, interrupt bool) error
	Interrupt(ctx context.Context) error
	SetPermissionMode(ctx context.Context, mode string) error
	Close(ctx context.Context) error
	SessionID() string
	Done() <-chan struct{}
}

// Spec says how to start a session for one chat.
type Spec struct {
	SessionKey     string
	Resume         string // Claude session id to resume, or ""
	Model          string
	PermissionMode string
	WorkDir        string // the chat's directory, or "" for the configured one
}

// Engine starts Claude sessions.
type Engine interface {
	Start(ctx context.Context, spec Spec) (Conn, error)
	// Interactive reports whether sessions have a control channel
	// (approvals, interrupt, live mode switches).
	Interactive() bool
}

// RunnerEngine starts real Claude Code processes.
type RunnerEngine struct {
	// Base holds everything but the per-chat fields of Spec.
	Base runner.Options
}

// Interactive implements Engine.
func (e *RunnerEngine) Interactive() bool { return e.Base.Mode != runner.OneShot }

// Start implements Engine.
func (e *RunnerEngine) Start(ctx context.Context, spec Spec) (Conn, error) {
	opts := e.Base
	opts.Resume = spec.Resume
	if spec.Model != "" {
		opts.Model = spec.Model
	}
	if spec.PermissionMode != "" {
		opts.PermissionMode = spec.PermissionMode
	}
	if spec.WorkDir != "" {
		opts.WorkDir = spec.WorkDir
	}
	if opts.Mode == runner.OneShot {
		return newOneShotConn(ctx, opts), nil
	}
	return runner.Start(ctx, opts)
}

// oneShotConn runs one process per message with --resume, presenting the
// same Conn as an interactive session: events of successive processes are
// forwarded on one channel, which closes only when the conn is closed.
type oneShotConn struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   runner.Options
	events chan runner.Event
	done   chan struct{}

	mu      sync.Mutex
	current *runner.Session
	id      string
	closed  bool
	wg      sync.WaitGroup
}

func newOneShotConn(ctx context.Context, opts runner.Options) *oneShotConn {
	ctx, cancel := context.WithCancel(ctx)
	return &oneShotConn{ctx: ctx, cancel: cancel, opts: opts, id: opts.Resume,
		events: make(chan runner.Event, 64), done: make(chan struct{})}
}

func (c *oneShotConn) Events() <-chan runner.Event { return c.events }
func (c *oneShotConn) Done() <-chan struct{}       { return c.done }

func (c *oneShotConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// Send starts a process for this message; it resumes the previous one's
// session so the conversation continues.
func (c *oneShotConn) Send(ctx context.Context, text string) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return runner.ErrClosed
	}
	if c.current != nil {
		c.mu.Unlock()
		return errBusyOneShot
	}
	opts := c.opts
	opts.Resume = c.id
	s, err := runner.StartOneShot(c.ctx, opts, text)
	if err != nil {
		c.mu.Unlock()
		return err
	}
	c.current = s
	c.wg.Add(1)
	c.mu.Unlock()
	go c.forward(s)
	return nil
}

func (c *oneShotConn) forward(s *runner.Session) {
	defer c.wg.Done()
	for ev := range s.Events() {
		switch e := ev.(type) {
		case runner.SessionStarted:
			c.setID(e.SessionID)
		case runner.TurnCompleted:
			c.setID(e.SessionID)
		case runner.Exited:
			c.mu.Lock()
			c.current = nil
			c.mu.Unlock()
			if !e.MidTurn && e.Err == nil {
				// A clean one-shot exit is the end of a turn, not of the session.
				continue
			}
		}
		select {
		case c.events <- ev:
		case <-c.ctx.Done():
		}
	}
}

func (c *oneShotConn) setID(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.id = id
	c.mu.Unlock()
}

func (c *oneShotConn) Allow(context.Context, string, json.RawMessage, []json.RawMessage) error {
	return runner.ErrNoControl
}
func (c *oneShotConn) Deny(context.Context, string, string, bool) error { return runner.ErrNoControl }
func (c *oneShotConn) SetPermissionMode(context.Context, string) error  { return runner.ErrNoControl }

// Interrupt ends the running process: one-shot has no softer way.
func (c *oneShotConn) Interrupt(ctx context.Context) error {
	c.mu.Lock()
	s := c.current
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close(ctx)
}

func (c *oneShotConn) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closed = true
	s := c.current
	c.mu.Unlock()
	if s != nil {
		_ = s.Close(ctx)
	}
	c.cancel()
	c.wg.Wait()
	select {
	case c.events <- runner.Exited{}:
	default:
	}
	close(c.events)
	close(c.done)
	return nil
}
