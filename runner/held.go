package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// A held session: the CLI runs under a holder (package hold) that outlives
// the bot. The Session is the same as with pipes; only its three ends
// differ: stdin goes through the holder (each line journaled, acked with
// its record), stdout comes back as journal records, and the process is
// signalled and waited for through it. Detach leaves it all running.

type heldConn struct {
	*hold.Link // the client of the holder now, and how to get another
	handle     hold.Handle
	// started is how the CLI was started (heldtrust.go); nil when the bot
	// that started it did not record it.
	started *engine.Started
	from    uint64 // the replay asked for (0: none)
	// lastSeq is the record of the line the writer wrote last; only the
	// writer goroutine touches it.
	lastSeq uint64
	// at is the record of the output line being handled; only the
	// reader goroutine touches it (steer.go).
	at       uint64
	seen     atomic.Uint64 // the last record read
	detached atomic.Bool
}

var (
	_ engine.Held    = HeldSession{}
	_ engine.Durable = (*Engine)(nil)
)

// HeldSession is a Session under a holder, as the engine hands it out: an
// engine.Held. A Session without a holder is no engine.Held.
type HeldSession struct{ *Session }

// Handle implements engine.Held.
func (h HeldSession) Handle() string { return h.HoldHandle() }

// conn is s as the engine hands it out.
func (s *Session) conn() engine.Conn {
	if s.held != nil {
		return HeldSession{s}
	}
	return s
}

// startHeld starts the CLI under a new holder and attaches to it.
func (s *Session) startHeld(ctx context.Context, bin string, args []string) error {
	o := s.opts
	self, root, err := o.Hold.Where(ctx)
	if err != nil {
		return err
	}
	h, err := hold.Spawn(ctx, o.Host, self, root, hold.Config{Path: bin, Args: args,
		Env: o.processEnv(), WorkDir: o.WorkDir, Orphan: o.Hold.Orphan, Overlay: o.Hold.Bridge, Detach: o.Hold.Bridge})
	if err != nil {
		return fmt.Errorf("start claude under a holder: %w", err)
	}
	// From record 1: what the CLI wrote before this hello (a start-up
	// error, a hook's output) is delivered too.
	c, err := dialHolder(ctx, o, h, 1)
	if err != nil {
		// Its CLI ends with it (its stdin closes).
		_ = o.Host.Kill(context.WithoutCancel(ctx), []int{h.Holder}, syscall.SIGKILL)
		return fmt.Errorf("attach to the new holder: %w", err)
	}
	s.attachHeld(ctx, h, c, 0, startedFrom(o))
	return nil
}

// Reattach attaches to a session a previous bot process started with
// opts.Hold, replaying its journal from record from (0: nothing). The
// replay restores what the runner knows of the turn (a prompt sent and
// not answered, approval requests not answered) from the journaled input;
// requests answered before are not asked again.
func Reattach(ctx context.Context, opts Options, handle string, from uint64) (*Session, error) {
	opts = opts.withDefaults()
	opts.Mode = Interactive
	hh, err := parseHandle(handle)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrGone, err)
	}
	h := hh.Handle
	// A handle of another protocol is dialled all the same: the holder's
	// refusal says that it runs, and which version it speaks.
	c, err := reattachDial(ctx, opts, h, from)
	var verr *hold.VersionError
	if errors.As(err, &verr) {
		if from == 0 {
			// Between turns nothing is lost by ending it (the next message
			// resumes the conversation): its SIGTERM ends its CLI cleanly,
			// as with every version. A turn's is left to run.
			_ = opts.Host.Kill(context.WithoutCancel(ctx), []int{h.Holder}, syscall.SIGTERM)
		}
		return nil, fmt.Errorf("%w: %v", engine.ErrOtherVersion, err)
	}
	if err != nil && opts.Hold.Bridge && hold.Transient(err) {
		// Its host did not answer: whether Claude runs there is not known.
		return nil, fmt.Errorf("reaching the holder of claude: %w", err)
	}
	if err != nil {
		// A holder that died left its files: they go now.
		if _, local := opts.Host.(host.Local); local {
			if ferr := hold.Forget(h); ferr != nil {
				opts.Logger.Debug("the files of a gone holder stay", "dir", h.Dir, "err", ferr)
			}
		}
		return nil, fmt.Errorf("%w: %v", engine.ErrGone, err)
	}
	s := newSession(opts)
	s.attachHeld(ctx, h, c, from, hh.Started)
	return s, nil
}

// Reattach implements engine.Durable.
func (e *Engine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	opts := e.options(spec)
	if opts.Mode == OneShot || opts.Hold == nil {
		return nil, fmt.Errorf("%w: sessions are not held in this configuration", engine.ErrGone)
	}
	s, err := Reattach(ctx, opts, handle, from)
	if err != nil {
		return nil, err
	}
	return s.conn(), nil
}

func (s *Session) attachHeld(ctx context.Context, h hold.Handle, c *hold.Client, from uint64, started *engine.Started) {
	h.Pid = c.Welcome.Pid
	var redial hold.Redial
	if s.opts.Hold.Bridge {
		o := s.opts
		redial = func(ctx context.Context, from uint64) (*hold.Client, error) { return dialHolder(ctx, o, h, from) }
	}
	s.held = &heldConn{Link: hold.NewLink(c, redial), handle: h, started: started, from: from}
	s.proc = heldProc{s}
	s.stdin = heldStdin{s}
	s.logger().Debug("claude held", "pid", h.Pid, "dir", h.Dir, "replay_from", from)
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.writeLoop() }()
	go func() { defer s.wg.Done(); s.heldLoop() }()
	go s.queue.Pump(s.events, s.abandon)
	go func() {
		select {
		case <-ctx.Done():
			close(s.abandon)
			s.Detach()
		case <-s.exited:
		}
	}()
}

// HoldHandle names the holder for Reattach ("" without one).
func (s *Session) HoldHandle() string {
	if s.held == nil {
		return ""
	}
	b, _ := json.Marshal(heldHandle{Handle: s.held.handle, Started: s.held.started})
	return string(b)
}

// SentAt is the journal record of the last prompt Send wrote (0 without a
// holder, or while the prompt waits for the writer: its record is not
// known).
func (s *Session) SentAt() uint64 { return s.sentAt.Load() }

// Seen is the last journal record read (0 without a holder).
func (s *Session) Seen() uint64 {
	if s.held == nil {
		return 0
	}
	return s.held.seen.Load()
}

// Detach leaves the holder and the CLI running: this Session ends
// without an Exited event. Without a holder it does nothing.
func (s *Session) Detach() {
	if s.held == nil || s.held.detached.Swap(true) {
		return
	}
	s.held.Stop()
}

// heldLoop reads the holder until the CLI exits or the bot detaches. A
// holder reached through a bridge is attached to again when the
// connection drops (relink), and what came meanwhile is read on; a
// re-attach's replay that the drop cut short is gathered on and handled
// once, whole (hold.Replay).
func (s *Session) heldLoop() {
	h := s.held
	dec := s.newDecoder()
	// A new session's first records are read as they come: no replay of a
	// previous bot's to restore.
	var rp *hold.Replay
	if h.from != 0 {
		rp = hold.NewReplay(h.from, h.Client().Welcome)
	}
	ex, err := s.readHeld(dec, h.Client(), rp)
	for err != nil && h.Redials() && !h.detached.Load() {
		c, rerr := s.relink(err)
		if rerr != nil {
			err = rerr // gone, given up, or closed meanwhile
			break
		}
		ex, err = s.readHeld(dec, c, rp)
	}
	s.closeOnce.Do(func() { close(s.closing) })
	if h.detached.Load() {
		s.queue.Close()
		close(s.exited)
		return
	}
	e := engine.Exited{ExitCode: -1}
	if err != nil {
		e.Err = fmt.Errorf("lost the holder of claude: %w", err)
		s.forgetHolder()
	} else {
		e.ExitCode, e.Signal = ex.Code, ex.Signal
		// The holder's tail has what came before this bot attached too.
		s.mu.Lock()
		s.stderrTail.buf, s.stderrTail.cut = nil, len(ex.StderrTail) >= hold.StderrTail
		_, _ = s.stderrTail.Write([]byte(ex.StderrTail))
		s.mu.Unlock()
		// The session is over: the holder removes its files and exits.
		_ = h.Client().Quit()
	}
	h.Stop()
	s.ended(e)
}

// readHeld handles the frames of c. While rp is pending (a re-attach) the
// replay is gathered first, so that the requests answered in it are known
// before any is decoded; the rest is read on as if the connection had
// never dropped.
func (s *Session) readHeld(dec *decoder, c *hold.Client, rp *hold.Replay) (*hold.Exit, error) {
	h := s.held
	replay := func(frames []hold.Frame, truncated bool) { s.replay(dec, frames, truncated) }
	for {
		f, err := c.Next()
		if err != nil {
			return nil, err
		}
		if rp.Step(f, &h.seen, replay) {
			continue
		}
		switch f.Kind {
		case 'o':
			if s.tooLong(f) {
				continue
			}
			h.at = f.Record.Seq
			s.line(dec, f.Record.Line, nil)
		case 'e':
			s.mu.Lock()
			_, _ = s.stderrTail.Write([]byte(f.Stderr))
			s.mu.Unlock()
		case 'x':
			return f.Exit, nil
		}
	}
}

// tooLong says whether f is an output line over MaxLineBytes, skipped as
// the runner without a holder skips it (lineReader).
func (s *Session) tooLong(f hold.Frame) bool {
	n := len(f.Record.Line)
	if f.Kind != 'o' || n <= s.opts.MaxLineBytes {
		return false
	}
	s.logger().Warn("skipped an over-long line from claude", "bytes", n, "max_bytes", s.opts.MaxLineBytes)
	return true
}

// inputLine is what the runner needs of a line it wrote to stdin.
type inputLine struct {
	Type     string `json:"type"`
	Response struct {
		RequestID string `json:"request_id"`
	} `json:"response"`
}

// replay handles the records a re-attach replayed: the input says which
// requests were answered and which prompts were sent; the output is
// decoded as it came, less the requests answered.
func (s *Session) replay(dec *decoder, frames []hold.Frame, truncated bool) {
	answered, prompts, steered := map[string]bool{}, 0, []string(nil)
	for _, f := range frames {
		var in inputLine
		if f.Kind == 'i' && json.Unmarshal(f.Record.Line, &in) == nil && in.Type == "control_response" {
			answered[in.Response.RequestID] = true
		}
	}
	for _, f := range frames {
		if f.Kind == 'o' {
			if s.tooLong(f) {
				continue
			}
			s.held.at = f.Record.Seq
			s.line(dec, f.Record.Line, answered)
			continue
		}
		var in inputLine
		if json.Unmarshal(f.Record.Line, &in) != nil || in.Type != "user" {
			continue
		}
		if id := s.replayedSteer(f.Record.Line); id != "" {
			steered = append(steered, id)
			continue
		}
		prompts++
		s.mu.Lock()
		s.turns++
		s.mu.Unlock()
		s.sentAt.Store(f.Record.Seq)
	}
	s.queue.Push(engine.Replayed{Prompts: prompts, Truncated: truncated, Steered: steered})
}

// heldStdin writes each line through the holder, which acks it with its
// record once written to the CLI. A line whose ack a dropped connection
// took is sent again, with its id, once relinked: the holder writes each
// id once.
type heldStdin struct{ s *Session }

func (w heldStdin) Write(p []byte) (int, error) {
	line := p
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	h := w.s.held
	seq, err := h.Input(context.Background(), line)
	if err != nil {
		return 0, err
	}
	h.lastSeq = seq
	return len(p), nil
}

// Close closes the CLI's stdin, unless the bot is only detaching.
func (w heldStdin) Close() error {
	if w.s.held.detached.Load() {
		return nil
	}
	return w.s.held.Client().CloseInput()
}

// heldProc is the CLI as the Session signals it: through the holder.
type heldProc struct{ s *Session }

func (p heldProc) Pid() int { return p.s.held.handle.Pid }

func (p heldProc) Signal(sig syscall.Signal) error {
	select {
	case <-p.s.exited:
		return syscall.ESRCH
	default:
	}
	if err := p.s.held.Client().Signal(sig); err != nil {
		if errors.Is(err, hold.ErrDetached) {
			return syscall.ESRCH
		}
		return err
	}
	return nil
}

func (p heldProc) Wait() (host.Exit, error) {
	<-p.s.exited
	if e := p.s.exitEvent; e != nil {
		return host.Exit{Code: e.ExitCode, Signal: e.Signal}, nil
	}
	return host.Exit{Code: -1}, nil
}
