package runner

import (
	"context"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// relink reaches a bridged holder again after its connection dropped
// (lost: why), replaying what came after the last record read
// (hold.Link.Relink). It tries until Hold.RelinkWait has passed; a holder
// that is gone, or the session detached meanwhile, ends it at once. A
// session being closed tries once: reached, Claude is told to exit (its
// stdin closed) and the session reads on to its exit; not, the session
// ends, and the holder ends Claude after its orphan time (Close never
// waits for a host that is down).
func (s *Session) relink(lost error) (*hold.Client, error) {
	h := s.held
	return h.Relink(lost, hold.Relinking{
		Agent: "claude", From: h.seen.Load() + 1, Wait: s.opts.Hold.RelinkWait,
		Detached: h.detached.Load, Closing: s.closing, Relinked: s.opts.Hold.Relinked, Logger: s.logger(),
	})
}

// dialHolder attaches to the holder of h: at its socket on this machine,
// or through a bridge started on the host (Hold.Bridge).
func dialHolder(ctx context.Context, o Options, h hold.Handle, from uint64) (*hold.Client, error) {
	return o.Hold.Reach(ctx, o.Host, o.Hold.Bridge, h, from)
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
