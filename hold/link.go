package hold

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Link is a held session's connection to its holder, whatever the agent
// (Claude Code in package runner, Codex in package codex): a client,
// replaced when a bridged holder's connection drops and it is reached
// again (Relink), replaying from the record after the last one read. The
// session's reader takes the client through Client and, when Next fails,
// calls Relink; a writer whose line a dropped connection took waits for
// the next client (Input, Await).
type Link struct {
	mu      sync.Mutex
	c       *Client
	changed chan struct{} // closed when c is replaced, or the link ends
	ended   bool
	redial  Redial
}

// Redial reaches the holder again, replaying from record from; nil: a lost
// connection ends the session (a holder on this machine: a lost socket is
// a holder gone).
type Redial func(ctx context.Context, from uint64) (*Client, error)

// NewLink is a link over c, reached again with redial (nil: never).
func NewLink(c *Client, redial Redial) *Link {
	return &Link{c: c, changed: make(chan struct{}), redial: redial}
}

// Client is the client now.
func (l *Link) Client() *Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

// Redials says whether a lost connection is reached again.
func (l *Link) Redials() bool { return l.redial != nil }

// set makes c the link's client. The one it replaces is closed: a reader
// error need not have ended its connection (a malformed frame), and as it
// is read no more, a writer waiting there for an ack would wait for ever;
// closed, the writer sends its line again over c (Input).
func (l *Link) set(c *Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		_ = c.Close()
		return
	}
	_ = l.c.Close()
	l.c = c
	close(l.changed)
	l.changed = make(chan struct{})
}

// Await returns the client that replaced c, or nil once the link ended.
func (l *Link) Await(c *Client) *Client {
	for {
		l.mu.Lock()
		cur, changed, ended := l.c, l.changed, l.ended
		l.mu.Unlock()
		switch {
		case ended:
			return nil
		case cur != c:
			return cur
		}
		<-changed
	}
}

// Stop ends the link: its client is closed (the holder goes on), a relink
// in progress gives up, and writers waiting for one are told.
func (l *Link) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.ended = true
		close(l.changed)
	}
	_ = l.c.Close()
}

// Stopped says whether Stop was called.
func (l *Link) Stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// Input writes line through the holder and returns its record. A line
// whose ack a dropped connection took is sent again, with its id, over
// the client that replaces it: the holder writes each id once. Without a
// redial, or once the link ended, the loss is the error.
func (l *Link) Input(ctx context.Context, line []byte) (uint64, error) {
	c := l.Client()
	id := c.NextID()
	for {
		seq, err := c.InputID(ctx, id, line)
		if err == nil || l.redial == nil || !errors.Is(err, ErrDetached) {
			return seq, err
		}
		next := l.Await(c)
		if next == nil {
			return 0, err
		}
		c = next
	}
}

// Relinking says how Relink tries to reach the holder again.
type Relinking struct {
	// Agent names the CLI in errors and logs ("claude", "codex").
	Agent string
	// From is the record to replay from: the one after the last read.
	From uint64
	// Wait bounds the tries (default DefaultRelinkWait).
	Wait time.Duration
	// Detached says the session detached meanwhile: no more tries.
	Detached func() bool
	// Closing is closed once the session is being closed: one try, and a
	// pause between tries is cut short.
	Closing <-chan struct{}
	// Relinked, when set, runs on its own goroutine after a relink: what
	// rode on the old connection is made again.
	Relinked func(ctx context.Context)
	Logger   *slog.Logger
}

// DefaultRelinkWait bounds the tries to reach a bridged holder again
// after its connection dropped; the session then ends with an error, its
// holder left to its orphan time.
const DefaultRelinkWait = 15 * time.Minute

// Bounds of one try to reach a bridged holder again, and the pause
// between tries (doubling up to relinkPauseMax).
const (
	relinkTry      = 30 * time.Second
	relinkPause    = 200 * time.Millisecond
	relinkPauseMax = 5 * time.Second
)

// Relink reaches a bridged holder again after its connection dropped
// (lost: why), replaying from r.From, and makes the new client the link's.
// It tries until r.Wait has passed; a holder that is gone, the link
// stopped or the session detached ends it at once. A session being closed
// tries once: reached, its request to close the CLI's input goes again
// (it may have met the dropped connection; once more is harmless); not,
// the holder ends the CLI after its orphan time (a close never waits for
// a host that is down).
func (l *Link) Relink(lost error, r Relinking) (*Client, error) {
	if l.redial == nil {
		return nil, fmt.Errorf("lost the holder of %s: %w", r.Agent, lost)
	}
	log := r.Logger
	if log == nil {
		log = slog.Default()
	}
	wait := r.Wait
	if wait <= 0 {
		wait = DefaultRelinkWait
	}
	deadline := time.Now().Add(wait)
	pause := relinkPause
	log.Info("the connection to "+r.Agent+"'s holder dropped: reaching it again", "err", lost)
	for {
		if l.Stopped() || (r.Detached != nil && r.Detached()) {
			return nil, fmt.Errorf("lost the holder of %s: %w", r.Agent, lost)
		}
		ctx, cancel := context.WithTimeout(context.Background(), relinkTry)
		c, err := l.redial(ctx, r.From)
		cancel()
		if err == nil {
			l.set(c)
			if closed(r.Closing) {
				_ = c.CloseInput()
			}
			log.Info("reached "+r.Agent+"'s holder again", "replay_from", r.From)
			if f := r.Relinked; f != nil {
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), relinkTry)
					defer cancel()
					f(ctx)
				}()
			}
			return c, nil
		}
		if !Transient(err) {
			return nil, fmt.Errorf("lost the holder of %s: %w", r.Agent, err)
		}
		if closed(r.Closing) {
			return nil, fmt.Errorf("closed while %s's holder could not be reached (it ends %s after its orphan time): %w", r.Agent, r.Agent, errors.Join(lost, err))
		}
		if !time.Now().Add(pause).Before(deadline) {
			return nil, fmt.Errorf("lost the connection to %s's holder for %v: %w", r.Agent, wait, errors.Join(lost, err))
		}
		log.Debug(r.Agent+"'s holder not reached yet", "err", err)
		l.mu.Lock()
		changed := l.changed // closed by Stop (a detach)
		l.mu.Unlock()
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-changed:
			t.Stop()
		case <-r.Closing:
			t.Stop()
		}
		pause = min(2*pause, relinkPauseMax)
	}
}

// closed says whether ch (nil: never) is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
