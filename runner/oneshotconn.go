package runner

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/untether/untether/engine"
)

// ErrBusyOneShot is returned by OneShotConn.Send while the previous
// message's process still runs.
var ErrBusyOneShot = errors.New("a one-shot turn is still running")

// OneShotConn runs one process per message with --resume, presenting the
// same Conn as an interactive session: events of successive processes are
// forwarded on one channel, which closes only when the conn is closed.
type OneShotConn struct {
	ctx    context.Context
	cancel context.CancelFunc
	opts   Options
	events chan engine.Event
	done   chan struct{}

	mu      sync.Mutex
	current *Session
	id      string
	closed  bool
	wg      sync.WaitGroup
}

// NewOneShotConn returns a connection whose processes are started by Send;
// ctx bounds all of them.
func NewOneShotConn(ctx context.Context, opts Options) *OneShotConn {
	ctx, cancel := context.WithCancel(ctx)
	return &OneShotConn{ctx: ctx, cancel: cancel, opts: opts, id: opts.Resume,
		events: make(chan engine.Event, 64), done: make(chan struct{})}
}

func (c *OneShotConn) Events() <-chan engine.Event { return c.events }
func (c *OneShotConn) Done() <-chan struct{}       { return c.done }

func (c *OneShotConn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// Send starts a process for this message; it resumes the previous one's
// session so the conversation continues.
func (c *OneShotConn) Send(ctx context.Context, text string) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return engine.ErrClosed
	}
	if c.current != nil {
		c.mu.Unlock()
		return ErrBusyOneShot
	}
	opts := c.opts
	opts.Resume = c.id
	s, err := StartOneShot(c.ctx, opts, text)
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

func (c *OneShotConn) forward(s *Session) {
	defer c.wg.Done()
	for ev := range s.Events() {
		switch e := ev.(type) {
		case engine.SessionStarted:
			c.setID(e.SessionID)
		case engine.TurnCompleted:
			c.setID(e.SessionID)
		case engine.Exited:
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

// Pid is the process id of the running turn's CLI, 0 between turns.
func (c *OneShotConn) Pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current == nil {
		return 0
	}
	return c.current.Pid()
}

// TreeCPU implements engine.CPUMeter for the running turn's CLI.
func (c *OneShotConn) TreeCPU(ctx context.Context) (time.Duration, error) {
	c.mu.Lock()
	cur := c.current
	c.mu.Unlock()
	if cur == nil {
		return 0, errors.New("no claude process between one-shot turns")
	}
	return cur.TreeCPU(ctx)
}

func (c *OneShotConn) setID(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	c.id = id
	c.mu.Unlock()
}

func (c *OneShotConn) Allow(context.Context, string, json.RawMessage, []json.RawMessage) error {
	return ErrNoControl
}
func (c *OneShotConn) Deny(context.Context, string, string, bool) error { return ErrNoControl }
func (c *OneShotConn) SetPermissionMode(context.Context, string) error  { return ErrNoControl }

// Interrupt ends the running process: one-shot has no softer way.
func (c *OneShotConn) Interrupt(ctx context.Context) error {
	c.mu.Lock()
	s := c.current
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close(ctx)
}

func (c *OneShotConn) Close(ctx context.Context) error {
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
	case c.events <- engine.Exited{}:
	default:
	}
	close(c.events)
	close(c.done)
	return nil
}
