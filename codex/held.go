package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// A held session (docs/durability.md, docs/protocol-codex.md): `codex
// app-server` runs under a holder (package hold) that outlives the bot, as
// Claude Code does. Only the Conn's ends differ from a child's pipes: each
// JSON-RPC line to Codex goes through the holder, which journals it and
// acks it with its record; Codex's lines come back as journal records; the
// process is signalled through the holder. A bot started later re-attaches
// (Engine.Reattach) and replays the running turn's records. A holder on a
// host is reached through a bridge over the ssh connection; when that
// drops, the Conn reaches it again and reads on from the last record it
// had (hold.Link, as runner does for Claude).

// heldWire is the Conn's holder.
type heldWire struct {
	*hold.Link // the client of the holder now, and how to get another
	handle     hold.Handle
	// started is what the app-server's thread was opened with that
	// bounds what it does unasked; nil when the bot that started it did
	// not record it (LessSafe).
	started *engine.Started
	// closing is closed when Close starts: a relink then tries once.
	closing   chan struct{}
	closeOnce sync.Once
	from      uint64        // the replay asked for (0: none)
	seen      atomic.Uint64 // the last record read
	sentAt    atomic.Uint64 // the record of the last turn/start written (0: still being written)
	detached  atomic.Bool
}

// heldHandle is what HeldConn.Handle says: the holder, and what a Conn
// re-attached needs of the thread, for it skips initialize and
// thread/start (the process is past them).
type heldHandle struct {
	Hold    hold.Handle `json:"hold"`
	Thread  string      `json:"thread"`
	Model   string      `json:"model,omitempty"`
	Cwd     string      `json:"cwd,omitempty"`
	Version string      `json:"version,omitempty"`
	// IDs is the Conn's prefix of request ids (Conn.ids): a re-attached
	// Conn hands out the same ids, so the buttons shown before still work.
	IDs string `json:"ids,omitempty"`
	// Started is what the thread was opened with that bounds what Codex
	// does unasked (absent in a handle an older bot wrote): a re-attached
	// Conn is past thread/start and keeps it.
	Started *engine.Started `json:"started,omitempty"`
}

// HeldConn is a Conn under a holder, as the engine hands it out: an
// engine.Held. A Conn without a holder is none.
type HeldConn struct{ *Conn }

var (
	_ engine.Held     = HeldConn{}
	_ engine.LessSafe = HeldConn{}
	_ engine.Durable  = (*Engine)(nil)
)

// startHeld starts codex app-server under a new holder, attaches to it and
// opens the thread.
func startHeld(ctx context.Context, o Options, spec engine.Spec) (engine.Conn, error) {
	bin, err := lookPath(ctx, o)
	if err != nil {
		return nil, err
	}
	self, root, err := o.Hold.Where(ctx)
	if err != nil {
		return nil, err
	}
	h, err := hold.Spawn(ctx, o.Host, self, root, hold.Config{Path: bin, Args: []string{"app-server"},
		Env: o.childEnv(), WorkDir: o.WorkDir, Orphan: o.Hold.Orphan, Overlay: o.Hold.Bridge, Detach: o.Hold.Bridge})
	if err != nil {
		return nil, fmt.Errorf("start codex under a holder: %w", err)
	}
	// From record 1: what Codex wrote before this hello is read too.
	cl, err := dialHolder(ctx, o, h, 1)
	if err != nil {
		// Codex ends with it (its stdin closes).
		_ = o.Host.Kill(context.WithoutCancel(ctx), []int{h.Holder}, syscall.SIGKILL)
		return nil, fmt.Errorf("attach to the new holder: %w", err)
	}
	c := newConn(o, spec)
	c.attach(h, cl, 0, startedOf(o))
	if err := c.open(ctx, spec); err != nil {
		_ = c.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	c.liveWhile(ctx)
	return HeldConn{c}, nil
}

// Reattach implements engine.Durable: it attaches to a held app-server a
// previous bot process started and replays its journal from record from
// (0: nothing). The replay brings the running turn back: its id (from
// turn/started), its text and actions, and Codex's approval requests no
// answer in the journal followed, which are pending again (answered by
// Codex's own request id). Responses to the previous bot's requests are
// skipped.
func (e *Engine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	o := e.options(spec)
	if o.Hold == nil {
		return nil, fmt.Errorf("%w: codex sessions are not held in this configuration", engine.ErrGone)
	}
	var hh heldHandle
	if err := json.Unmarshal([]byte(handle), &hh); err != nil || hh.Thread == "" {
		return nil, fmt.Errorf("%w: unreadable codex handle (%v)", engine.ErrGone, err)
	}
	cl, err := dialHolder(ctx, o, hh.Hold, from)
	var verr *hold.VersionError
	if errors.As(err, &verr) {
		if from == 0 {
			// Between turns nothing is lost by ending it: the next message
			// resumes the thread. A turn's is left to run (as runner's).
			_ = o.Host.Kill(context.WithoutCancel(ctx), []int{hh.Hold.Holder}, syscall.SIGTERM)
		}
		return nil, fmt.Errorf("%w: %v", engine.ErrOtherVersion, err)
	}
	if err != nil && o.Hold.Bridge && hold.Transient(err) {
		// Its host did not answer: whether Codex runs there is not known.
		return nil, fmt.Errorf("reaching the holder of codex: %w", err)
	}
	if err != nil {
		forget(o, hh.Hold)
		return nil, fmt.Errorf("%w: %v", engine.ErrGone, err)
	}
	c := newConn(o, spec)
	c.restoreHandle(hh)
	c.attach(hh.Hold, cl, from, hh.Started)
	c.liveWhile(ctx)
	c.log.Debug("codex re-attached", "session_id", hh.Thread, "pid", c.held.handle.Pid, "replay_from", from)
	return HeldConn{c}, nil
}

// restoreHandle gives a re-attached Conn what its handle says of the
// process and its thread.
func (c *Conn) restoreHandle(hh heldHandle) {
	c.thread, c.model, c.cwd, c.version, c.ids = hh.Thread, hh.Model, hh.Cwd, hh.Version, hh.IDs
}

// dialHolder attaches to the holder of h: at its socket on this machine,
// or through a bridge started on the host.
func dialHolder(ctx context.Context, o Options, h hold.Handle, from uint64) (*hold.Client, error) {
	return o.Hold.Reach(ctx, o.Host, o.Hold.Bridge, h, from)
}

// forget removes the files of a holder that is gone, on this machine only
// (a bridged holder's host may only be out of reach; it removes its files
// itself when it ends).
func forget(o Options, h hold.Handle) {
	if _, local := o.Host.(host.Local); !local || o.Hold.Bridge {
		return
	}
	if err := hold.Forget(h); err != nil {
		o.Logger.Debug("the files of a gone holder stay", "engine", "codex", "dir", h.Dir, "err", err)
	}
}

func (c *Conn) attach(h hold.Handle, cl *hold.Client, from uint64, started *engine.Started) {
	h.Pid = cl.Welcome.Pid
	var redial hold.Redial
	if c.o.Hold.Bridge {
		o := c.o
		redial = func(ctx context.Context, from uint64) (*hold.Client, error) { return dialHolder(ctx, o, h, from) }
	}
	c.held = &heldWire{Link: hold.NewLink(cl, redial), handle: h, started: started, from: from, closing: make(chan struct{})}
	c.stdin = heldStdin{c}
	c.rpc = newRPC(c.stdin)
	// Our request ids must not meet a previous bot's, whose responses may
	// still be in the journal: each request is a record, so ids above
	// every record so far are new.
	c.rpc.nextID = int64(max(cl.Welcome.Last, cl.Welcome.LastIn))
	go c.queue.Pump(c.events, c.abandon)
	go c.readHeld(from != 0)
}

// Handle implements engine.Held.
func (h HeldConn) Handle() string {
	c := h.Conn
	c.mu.Lock()
	hh := heldHandle{Hold: c.held.handle, Thread: c.thread, Model: c.model, Cwd: c.cwd, Version: c.version, IDs: c.ids,
		Started: c.held.started}
	c.mu.Unlock()
	b, _ := json.Marshal(hh)
	return string(b)
}

// LessSafe implements engine.LessSafe: how the held app-server may do more
// unasked than one started now would ("" when it may not). A thread keeps
// what thread/start or thread/resume opened it with for the process's
// life, and a re-attached Conn sends neither: a project's
// .codex/config.toml loaded then (project_config = true, or a bot before
// the untrusted override) keeps its MCP servers running and its
// shell_environment_policy set. The core lets such a process finish its
// turn and ends it; the next turn resumes the thread in a new process.
func (h HeldConn) LessSafe() string {
	return h.held.started.LessSafeThan(*startedOf(h.o))
}

// startedOf is what a thread o opens is opened with that bounds what
// Codex does unasked (engine.Started): whether the project's own config
// loads. The approval policy and the sandbox are not there: every
// turn/start sends the mode's (modes.go).
func startedOf(o Options) *engine.Started {
	return &engine.Started{ProjectConfig: o.ProjectConfig}
}

// SentAt implements engine.Held: the record of the last turn/start, 0
// while it waits for the holder (Send took it as started).
func (h HeldConn) SentAt() uint64 { return h.held.sentAt.Load() }

// Seen implements engine.Held.
func (h HeldConn) Seen() uint64 { return h.held.seen.Load() }

// Detach implements engine.Held: the holder and Codex go on, this Conn
// ends without Exited.
func (h HeldConn) Detach() { h.detach() }

// detach leaves the holder and Codex running; without a holder it does
// nothing.
func (c *Conn) detach() {
	if c.held == nil || c.held.detached.Swap(true) {
		return
	}
	c.held.Stop()
}

// readHeld reads the holder until Codex exits, the holder is lost, or
// the bot detaches. A holder reached through a bridge is attached to
// again when the connection drops (hold.Link.Relink), and what came
// meanwhile is read on: Codex's lines after the last one read, each once;
// a re-attach's replay that the drop cut short is gathered on and
// handled once, whole (hold.Replay).
func (c *Conn) readHeld(restore bool) {
	w := c.held
	var rp *hold.Replay
	if restore {
		rp = hold.NewReplay(w.from, w.Client().Welcome)
	}
	exit, err := c.readFrames(w.Client(), rp)
	for err != nil && w.Redials() && !w.detached.Load() {
		cl, rerr := w.Relink(err, hold.Relinking{Agent: "codex", From: w.seen.Load() + 1, Wait: c.o.Hold.RelinkWait,
			Detached: w.detached.Load, Closing: w.closing, Logger: c.log})
		if rerr != nil {
			err = rerr // gone, given up, or closed meanwhile
			break
		}
		exit, err = c.readFrames(cl, rp)
	}
	c.rpc.ended(engine.ErrClosed)
	if w.detached.Load() {
		c.queue.Close()
		close(c.done)
		return
	}
	ex := engine.Exited{ExitCode: -1}
	if exit == nil {
		ex.Err = fmt.Errorf("lost the holder of codex: %w", err)
		forget(c.o, w.handle)
	} else {
		ex.ExitCode, ex.Signal = exit.Code, exit.Signal
		// The holder's tail has what came before this bot attached too.
		c.stderr.reset(exit.StderrTail)
		_ = w.Client().Quit() // the session is over: the holder goes
	}
	w.Stop()
	c.exited(ex)
}

// readFrames handles the frames of cl until Codex exits (its exit) or the
// connection ends (the error). While rp is pending (a re-attach mid-turn)
// the replay is gathered first, so that the answers in it are known before
// any request is handled; the rest is read on as if the connection had
// never dropped.
func (c *Conn) readFrames(cl *hold.Client, rp *hold.Replay) (*hold.Exit, error) {
	w := c.held
	for {
		f, err := cl.Next()
		if err != nil {
			return nil, err
		}
		if rp.Step(f, &w.seen, c.replay) {
			continue
		}
		switch f.Kind {
		case 'o':
			if len(f.Record.Line) > maxLine {
				c.log.Warn("codex message too long, skipped", "max_bytes", maxLine)
				continue
			}
			c.handle(f.Record.Line)
		case 'e':
			_, _ = c.stderr.Write([]byte(f.Stderr))
		case 'x':
			return f.Exit, nil
		}
	}
}

// replay handles the records a re-attach replayed: our own lines (i) say
// which of Codex's requests were answered, where a turn began and what
// was steered into it; Codex's
// (o) are handled as they were, less the responses to the previous bot's
// requests and the requests it answered.
func (c *Conn) replay(frames []hold.Frame, truncated bool) {
	answered := map[string]bool{}
	for _, f := range frames {
		var m message
		if f.Kind == 'i' && json.Unmarshal(f.Record.Line, &m) == nil && m.Method == "" && len(m.ID) > 0 {
			answered[string(m.ID)] = true
		}
	}
	prompts, steered := 0, []string(nil)
	for _, f := range frames {
		var m message
		if json.Unmarshal(f.Record.Line, &m) != nil {
			if f.Kind == 'o' {
				c.handle(f.Record.Line) // logged and skipped there
			}
			continue
		}
		switch {
		case f.Kind == 'i':
			switch m.Method {
			case "turn/start":
				prompts++
				c.mu.Lock()
				c.beginTurnLocked()
				c.mu.Unlock()
				c.held.sentAt.Store(f.Record.Seq)
			case "turn/steer":
				if id := c.resteer(m); id != "" {
					steered = append(steered, id)
				}
			}
		case m.Method == "" && len(m.ID) > 0:
			c.log.Debug("codex response to the previous bot's request, skipped", "id", string(m.ID))
		case len(m.ID) > 0 && answered[string(m.ID)]:
			c.log.Debug("codex request answered before the restart, skipped", "method", m.Method, "id", string(m.ID))
		default:
			c.handle(f.Record.Line)
		}
	}
	c.queue.Push(engine.Replayed{Prompts: prompts, Truncated: truncated, Steered: steered})
}

// resteer follows again a message the previous bot steered into the
// turn (its turn/steer line): the bot still holds it marked and waits to
// hear whether the turn took it or dropped it (steer.go). It gives the
// message's id ("" when unreadable).
func (c *Conn) resteer(m message) string {
	var p struct {
		ID string `json:"clientUserMessageId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.ID == "" {
		return ""
	}
	c.mu.Lock()
	if c.steered == nil {
		c.steered = map[string]bool{}
	}
	c.steered[p.ID] = true
	c.mu.Unlock()
	return p.ID
}

// heldStdin writes each line through the holder, which acks it with its
// record once written to Codex. A line written while a dropped connection
// is reached again waits for the new one; one whose ack the drop took goes
// again with its id, and the holder writes it once (hold.Link.Input).
type heldStdin struct{ c *Conn }

func (w heldStdin) Write(p []byte) (int, error) {
	h := w.c.held
	line := bytes.TrimSuffix(p, []byte("\n"))
	seq, err := h.Input(context.Background(), line)
	if err != nil {
		return 0, fmt.Errorf("write through the holder: %w", err)
	}
	var m struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &m) == nil && m.Method == "turn/start" {
		h.sentAt.Store(seq)
		if seq > 1 {
			// No re-attach replays what came before a turn: the journal
			// may drop it.
			_ = h.Client().Trim(seq - 1)
		}
	}
	return len(p), nil
}

// Close closes Codex's stdin, unless the bot is only detaching. Over a
// dropped connection it goes again once the holder is reached (Relink,
// told by closing).
func (w heldStdin) Close() error {
	h := w.c.held
	if h.detached.Load() {
		return nil
	}
	h.closeOnce.Do(func() { close(h.closing) })
	return h.Client().CloseInput()
}
