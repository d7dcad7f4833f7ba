package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// link is a held session's connection to its holder: a client, replaced
// when a bridged holder's connection drops and it is reached again
// (relink). Readers of the client take it through client(); a writer whose
// line a dropped connection took waits for the next one (await).
type link struct {
	mu      sync.Mutex
	c       *hold.Client
	changed chan struct{} // closed when c is replaced, or the link ends
	ended   bool
	// redial reaches the holder again, replaying from record from; nil: a
	// lost connection ends the session (a holder on this machine: a lost
	// socket is a holder gone).
	redial func(ctx context.Context, from uint64) (*hold.Client, error)
}

func newLink(c *hold.Client) link { return link{c: c, changed: make(chan struct{})} }

func (l *link) client() *hold.Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c
}

func (l *link) set(c *hold.Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		_ = c.Close()
		return
	}
	l.c = c
	close(l.changed)
	l.changed = make(chan struct{})
}

// await returns the client that replaced c, or nil once the link ended.
func (l *link) await(c *hold.Client) *hold.Client {
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

// stop ends the link: its client is closed (the holder goes on), a relink
// in progress gives up, and writers waiting for one are told.
func (l *link) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ended {
		l.ended = true
		close(l.changed)
	}
	_ = l.c.Close()
}

func (l *link) stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ended
}

// Bounds of one try to reach a bridged holder again, and the pause
// between tries (doubling up to relinkPauseMax).
const (
	relinkTry      = 30 * time.Second
	relinkPause    = 200 * time.Millisecond
	relinkPauseMax = 5 * time.Second
)

// relink reaches a bridged holder again after its connection dropped
// (lost: why), replaying what came after the last record read. It tries
// until Hold.RelinkWait has passed; a holder that is gone, or the session
// detached meanwhile, ends it at once. A session being closed tries once:
// reached, Claude is told to exit (its stdin closed) and the session
// reads on to its exit; not, the session ends, and the holder ends Claude
// after its orphan time (Close never waits for a host that is down).
func (s *Session) relink(lost error) (*hold.Client, error) {
	h := s.held
	wait := s.opts.Hold.RelinkWait
	if wait <= 0 {
		wait = DefaultRelinkWait
	}
	deadline := time.Now().Add(wait)
	pause := relinkPause
	s.logger().Info("the connection to claude's holder dropped: reaching it again", "err", lost)
	for {
		if h.stopped() || h.detached.Load() {
			return nil, fmt.Errorf("lost the holder of claude: %w", lost)
		}
		ctx, cancel := context.WithTimeout(context.Background(), relinkTry)
		c, err := h.redial(ctx, h.seen.Load()+1)
		cancel()
		if err == nil {
			h.set(c)
			if s.isClosing() {
				// Close's request to exit may have met the dropped
				// connection: it goes again (once more is harmless).
				_ = c.CloseInput()
			}
			s.logger().Info("reached claude's holder again", "replay_from", h.seen.Load()+1)
			if f := s.opts.Hold.Relinked; f != nil {
				go func() {
					ctx, cancel := context.WithTimeout(context.Background(), relinkTry)
					defer cancel()
					f(ctx)
				}()
			}
			return c, nil
		}
		if !hold.Transient(err) {
			return nil, fmt.Errorf("lost the holder of claude: %w", err)
		}
		if s.isClosing() {
			return nil, fmt.Errorf("closed while claude's holder could not be reached (it ends claude after its orphan time): %w", errors.Join(lost, err))
		}
		if !time.Now().Add(pause).Before(deadline) {
			return nil, fmt.Errorf("lost the connection to claude's holder for %v: %w", wait, errors.Join(lost, err))
		}
		s.logger().Debug("claude's holder not reached yet", "err", err)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-s.abandon:
			t.Stop()
		case <-s.closing:
			t.Stop()
		}
		pause = min(2*pause, relinkPauseMax)
	}
}

// dialHolder attaches to the holder of h: at its socket on this machine,
// or through a bridge started on the host (Hold.Bridge).
func dialHolder(ctx context.Context, o Options, h hold.Handle, from uint64) (*hold.Client, error) {
	if !o.Hold.Bridge {
		return hold.Dial(ctx, h.Sock(), h.Secret, from)
	}
	self, _, err := o.Hold.Where(ctx)
	if err != nil {
		return nil, err
	}
	return hold.DialVia(ctx, o.Host, self, h, from)
}

// reattachDial is dialHolder for a bot started anew: a bridged holder's
// connection that fails at once is tried again for a little while (the
// machine's network coming back with it).
func reattachDial(ctx context.Context, o Options, h hold.Handle, from uint64) (*hold.Client, error) {
	wait := o.Hold.ReattachWait
	if wait <= 0 {
		wait = DefaultReattachWait
	}
	deadline := time.Now().Add(wait)
	for {
		c, err := dialHolder(ctx, o, h, from)
		if err == nil || !o.Hold.Bridge || !hold.Transient(err) || time.Now().After(deadline) {
			return c, err
		}
		select {
		case <-time.After(min(time.Second, max(0, time.Until(deadline)))):
		case <-ctx.Done():
			return nil, err
		}
	}
}

// forgetHolder removes the files of a holder this session lost: the
// session ends, the bot forgets its record, and nothing else would remove
// its journal. Only a local holder's: hold.Forget removes a folder whose
// socket refuses connections; a bridged holder's host may only be out of
// reach, and its holder removes its files itself when it ends.
func (s *Session) forgetHolder() {
	if _, local := s.opts.Host.(host.Local); !local || s.opts.Hold.Bridge {
		return
	}
	if err := hold.Forget(s.held.handle); err != nil {
		s.logger().Debug("the files of a lost holder stay", "dir", s.held.handle.Dir, "err", err)
	}
}
