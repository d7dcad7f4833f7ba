package codex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
	"github.com/untether/untether/token"
)

// maxLine bounds one message from Codex; a longer one is skipped.
const maxLine = 32 << 20

// Conn is one Codex session: an app-server process and one thread in it.
type Conn struct {
	o      Options
	log    *slog.Logger
	proc   host.Process // the app-server, without a holder
	stdin  io.WriteCloser
	rpc    *rpc
	events chan engine.Event
	queue  *engine.Queue
	done   chan struct{}
	// abandon is closed when the Start context ends: nobody reads Events
	// any more, so the queue stops delivering instead of blocking forever.
	abandon chan struct{}
	stderr  *tail
	// held is the holder the app-server runs under (nil: it is this
	// host's process, proc).
	held *heldWire

	version string
	// ids prefixes the ids of Codex's requests as the engine hands them
	// out: Codex numbers them from 0 in every process, and the bot's
	// approval buttons are derived from the conversation and the id.
	ids string

	mu      sync.Mutex
	thread  string
	model   string
	cwd     string
	mode    string
	turn    string // the running turn's id, "" between turns
	running bool   // a turn was asked for and has not completed
	// interruptWanted: Interrupt was asked for while the running turn's
	// id was not known yet (its turn/start taken as started, still on its
	// way): the interrupt goes once the id is (turnKnownLocked).
	interruptWanted bool
	pending         map[string]approval
	changes         map[string]json.RawMessage // file-change items' changes, by item id
	usage           engine.Usage               // this turn's so far
	context         int
	window          int
	lastText        string
	turnErr         string
	steered         map[string]bool // ids of messages steered into the turn, not taken yet
	closing         bool
}

// approval is one of Codex's requests waiting for the phone.
type approval struct {
	id          json.RawMessage
	fileChange  bool
	sessionWide bool // Codex offers acceptForSession
	// questions, for a user-input request: Codex's question ids by the
	// question's text.
	questions map[string]string
}

var _ engine.Conn = (*Conn)(nil)

func newConn(o Options, spec engine.Spec) *Conn {
	c := &Conn{
		o: o, log: o.Logger.With("engine", "codex"),
		events: make(chan engine.Event), queue: engine.NewQueue(), done: make(chan struct{}), abandon: make(chan struct{}), stderr: &tail{max: 8 << 10},
		mode: spec.PermissionMode, pending: map[string]approval{}, changes: map[string]json.RawMessage{},
		ids: token.New()[:8] + ".",
	}
	if c.mode == "" {
		c.mode = engine.DefaultPermissionMode
	}
	return c
}

func start(ctx context.Context, o Options, spec engine.Spec) (engine.Conn, error) {
	if o.Hold != nil {
		c, err := startHeld(ctx, o, spec)
		if err == nil {
			return c, nil
		}
		// Codex still runs, only not through a restart: better than none
		// (a socket path too long for the system, say).
		o.Logger.Warn("codex starts without a holder: it will stop with the bot", "engine", "codex", "err", err)
	}
	c := newConn(o, spec)
	bin, err := lookPath(ctx, o)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("codex stdin: %w", err)
	}
	stdout, outW, err := os.Pipe()
	if err != nil {
		_, _ = inR.Close(), inW.Close()
		return nil, fmt.Errorf("codex stdout: %w", err)
	}
	// In a group of its own (host.Process): the commands Codex runs go
	// with it. The session, not ctx, ends it.
	proc, err := o.Host.Start(context.WithoutCancel(ctx), host.Cmd{Path: bin, Args: []string{"app-server"}, Env: o.childEnv(),
		Dir: o.WorkDir, Stdin: inR, Stdout: outW, Stderr: c.stderr})
	_, _ = inR.Close(), outW.Close()
	if err != nil {
		_, _ = inW.Close(), stdout.Close()
		return nil, fmt.Errorf("start %s app-server: %w", o.Binary, err)
	}
	c.proc, c.stdin, c.rpc = proc, inW, newRPC(inW)
	go c.queue.Pump(c.events, c.abandon)
	go c.read(stdout)
	if err := c.open(ctx, spec); err != nil {
		_ = c.Close(context.Background())
		return nil, err
	}
	c.liveWhile(ctx)
	return c, nil
}

// liveWhile ends the session with ctx, as runner's lives as long as the
// Start context.
func (c *Conn) liveWhile(ctx context.Context) {
	go func() {
		select {
		case <-ctx.Done():
			close(c.abandon)
			if c.held != nil {
				c.detach()
				return
			}
			_ = c.Close(context.Background())
		case <-c.done:
		}
	}()
}

// open says hello and starts or resumes the thread.
func (c *Conn) open(ctx context.Context, spec engine.Spec) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	var hello struct {
		UserAgent string `json:"userAgent"`
	}
	if err := c.rpc.call(ctx, "initialize", map[string]any{"clientInfo": map[string]string{"name": "untether", "title": "untether", "version": "1"}}, &hello); err != nil {
		return fmt.Errorf("codex initialize: %w", err)
	}
	c.version = versionOf(hello.UserAgent)
	if err := c.rpc.notify("initialized", nil); err != nil {
		return err
	}
	p := policyFor(c.mode)
	params := map[string]any{"approvalPolicy": p.Approval, "sandbox": p.Sandbox, "config": threadConfig(c.o)}
	if c.o.WorkDir != "" {
		params["cwd"] = c.o.WorkDir
	}
	if c.o.Model != "" {
		params["model"] = c.o.Model
	}
	method := "thread/start"
	if spec.Resume != "" {
		method = "thread/resume"
		params["threadId"] = spec.Resume
	}
	var res struct {
		Thread struct {
			ID  string `json:"id"`
			Cwd string `json:"cwd"`
		} `json:"thread"`
		Model string `json:"model"`
		Cwd   string `json:"cwd"`
	}
	if err := c.rpc.call(ctx, method, params, &res); err != nil {
		return fmt.Errorf("codex %s: %w", method, err)
	}
	c.mu.Lock()
	c.thread, c.model, c.cwd = res.Thread.ID, res.Model, res.Cwd
	if c.cwd == "" {
		c.cwd = c.o.WorkDir
	}
	c.mu.Unlock()
	c.log.Debug("codex thread open", "method", method, "session_id", res.Thread.ID, "version", c.version)
	return nil
}

// threadConfig overrides Codex's config.toml for the bot's threads: the
// model may ask the user questions (request_user_input) outside Codex's
// plan mode too, for the phone shows them as buttons (measured: without
// it Codex 0.171.0 answers the model "request_user_input is unavailable
// in Default mode"); and, unless o.ProjectConfig, the project is not
// trusted (untrustedProjects).
func threadConfig(o Options) map[string]any {
	cfg := map[string]any{"features": map[string]any{"default_mode_request_user_input": true}}
	if !o.ProjectConfig {
		if p := untrustedProjects(o); len(p) > 0 {
			cfg["projects"] = p
		}
	}
	return cfg
}

// versionOf reads the version from initialize's userAgent,
// "untether/0.171.0 (Debian 12.0.0; x86_64) …".
func versionOf(ua string) string {
	first, _, _ := strings.Cut(ua, " ")
	_, v, _ := strings.Cut(first, "/")
	return v
}

// Events implements engine.Conn.
func (c *Conn) Events() <-chan engine.Event { return c.events }

// SessionID is the Codex thread's id.
func (c *Conn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.thread
}

// Done is closed once the process has ended and Exited was queued.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Send starts a turn with the prompt, under the session's permission mode.
func (c *Conn) Send(ctx context.Context, text string) error {
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		return errors.New("codex: a turn is running")
	}
	c.beginTurnLocked()
	thread, p := c.thread, policyFor(c.mode)
	c.mu.Unlock()
	if c.held != nil {
		// Until its line has a record (heldStdin.Write), SentAt says none:
		// the previous turn/start's would make a restart replay that turn
		// as this one's (engine.Held).
		c.held.sentAt.Store(0)
	}
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	var res struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	err := c.rpc.callLate(ctx, "turn/start", map[string]any{
		"threadId":       thread,
		"input":          []map[string]any{{"type": "text", "text": text}},
		"approvalPolicy": p.Approval,
		"sandboxPolicy":  p.sandboxPolicy(),
	}, &res, c.startAnsweredLate)
	if errors.Is(err, errUnanswered) {
		// Codex may run the turn: it is not reported failed (the bot would
		// run the prompt again). Its events, or a late refusal, follow.
		c.log.Warn("codex did not answer turn/start in time: taken as started", "err", err)
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.running = false
		return fmt.Errorf("codex turn/start: %w", err)
	}
	if c.turn == "" {
		c.turnKnownLocked(res.Turn.ID)
	}
	return nil
}

// beginTurnLocked marks a turn asked for, its counts from zero; c.mu is
// held.
func (c *Conn) beginTurnLocked() {
	c.running, c.interruptWanted = true, false
	c.usage, c.context, c.lastText, c.turnErr = engine.Usage{}, 0, "", ""
}

// Allow accepts a request; with updatedPermissions (the suggestion it
// offered) for the rest of the session where Codex offers that. A
// question request is answered with the answers in updatedInput.
func (c *Conn) Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error {
	return c.decide(requestID, func(a approval) any {
		switch {
		case a.questions != nil:
			return answersFor(a, updatedInput)
		case len(updatedPermissions) > 0 && a.sessionWide:
			return decision("acceptForSession")
		}
		return decision("accept")
	})
}

// Deny declines a request: the turn goes on without it; with interrupt
// the turn ends (Codex's cancel). A question request, which Codex cannot
// be told no, gets empty answers (and the turn is interrupted with
// interrupt).
func (c *Conn) Deny(ctx context.Context, requestID, _ string, interrupt bool) error {
	var question bool
	err := c.decide(requestID, func(a approval) any {
		if a.questions != nil {
			question = true
			return answersFor(a, nil)
		}
		if interrupt {
			return decision("cancel")
		}
		return decision("decline")
	})
	if err == nil && question && interrupt {
		return c.Interrupt(ctx)
	}
	return err
}

func decision(d string) map[string]string { return map[string]string{"decision": d} }

func (c *Conn) decide(requestID string, result func(approval) any) error {
	c.mu.Lock()
	a, ok := c.pending[requestID]
	delete(c.pending, requestID)
	c.mu.Unlock()
	if !ok {
		return engine.ErrUnknownRequest
	}
	return c.rpc.answer(a.id, result(a))
}

// Interrupt ends the running turn (turn/interrupt); its turn/completed
// says "interrupted". A turn asked for whose id is not known yet (its
// turn/start taken as started while the line waits for a held Codex's
// link) is interrupted as soon as it is: turn/interrupt needs the id.
func (c *Conn) Interrupt(ctx context.Context) error {
	c.mu.Lock()
	thread, turn := c.thread, c.turn
	if turn == "" && c.running {
		c.interruptWanted = true
	}
	c.mu.Unlock()
	if turn == "" {
		return nil
	}
	return c.interrupt(ctx, thread, turn)
}

func (c *Conn) interrupt(ctx context.Context, thread, turn string) error {
	ctx, cancel := context.WithTimeout(ctx, c.o.RequestTimeout)
	defer cancel()
	if err := c.rpc.call(ctx, "turn/interrupt", map[string]string{"threadId": thread, "turnId": turn}, nil); err != nil {
		return fmt.Errorf("codex turn/interrupt: %w", err)
	}
	return nil
}

// turnKnownLocked notes the running turn's id (c.mu held) and sends the
// interrupt asked for before it was known. That goes on a goroutine of its
// own: the reader, which may call this, reads its answer. One that fails
// ends the process, as the core does when an Interrupt fails: the user
// asked the turn to stop.
func (c *Conn) turnKnownLocked(id string) {
	c.turn = id
	if !c.interruptWanted || id == "" {
		return
	}
	c.interruptWanted = false
	thread := c.thread
	go func() {
		c.log.Info("codex turn interrupted now that its id is known", "turn_id", id)
		if err := c.interrupt(context.Background(), thread, id); err != nil {
			c.log.Warn("codex did not take the interrupt asked for before the turn had its id: closing the process", "err", err)
			_ = c.Close(context.Background())
		}
	}()
}

// SetPermissionMode changes the mode from the next turn on (turn/start
// carries the policy; Codex keeps it for later turns).
func (c *Conn) SetPermissionMode(_ context.Context, mode string) error {
	if _, ok := policies[mode]; !ok {
		return fmt.Errorf("codex: unknown permission mode %q", mode)
	}
	c.mu.Lock()
	c.mode = mode
	c.mu.Unlock()
	c.queue.Push(engine.PermissionModeChanged{Mode: mode})
	return nil
}

// Close ends the process: stdin closed, then after CloseGrace its group
// is killed. It returns once the process has ended.
func (c *Conn) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	_ = c.stdin.Close()
	t := time.NewTimer(c.o.CloseGrace)
	defer t.Stop()
	select {
	case <-c.done:
		return nil
	case <-t.C:
	case <-ctx.Done():
	}
	c.kill()
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("close codex: %w", ctx.Err())
	}
}

func (c *Conn) kill() {
	if c.held != nil {
		_ = c.held.Client().Signal(syscall.SIGKILL) // the holder signals its group
		return
	}
	if c.proc != nil {
		_ = c.proc.Signal(syscall.SIGKILL)
	}
}

// read handles Codex's stdout until it ends, then waits for the process
// and ends the session.
func (c *Conn) read(stdout *os.File) {
	err := lines(stdout, maxLine, func(line []byte, ok bool) {
		if !ok {
			c.log.Warn("codex message too long, skipped", "max_bytes", maxLine)
			return
		}
		c.handle(line)
	})
	if err != nil {
		c.log.Warn("codex output", "err", err)
	}
	c.rpc.ended(engine.ErrClosed)
	// The commands Codex started share its group and may hold on.
	c.kill()
	st, waitErr := c.proc.Wait()
	_ = stdout.Close()
	ex := engine.Exited{ExitCode: st.Code, Signal: st.Signal}
	if waitErr != nil {
		ex.Err = fmt.Errorf("wait for codex: %w", waitErr)
	}
	c.exited(ex)
}

// lookPath finds the codex binary on its host (the holder's own PATH is
// not the bot's, and a host's is its own).
func lookPath(ctx context.Context, o Options) (string, error) {
	bin, err := o.Host.LookPath(ctx, o.Binary)
	if err != nil {
		return "", fmt.Errorf("find codex binary %q (install Codex or set [codex] binary): %w", o.Binary, err)
	}
	return bin, nil
}

// exited ends the session with the process's end, ex.
func (c *Conn) exited(ex engine.Exited) {
	ex.StderrTail = c.o.Redact(c.stderr.String())
	c.mu.Lock()
	ex.MidTurn = c.running
	closing := c.closing
	clear(c.pending)
	c.mu.Unlock()
	if ex.MidTurn && ex.Err == nil {
		ex.Err = fmt.Errorf("codex exited without finishing the turn (exit code %d)", ex.ExitCode)
	}
	c.log.Debug("codex exited", "exit_code", ex.ExitCode, "signal", ex.Signal, "mid_turn", ex.MidTurn, "closing", closing, "err", ex.Err)
	c.queue.Push(ex)
	c.queue.Close()
	close(c.done)
}

// tail keeps the last max bytes written (Codex's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// reset makes s the whole tail.
func (t *tail) reset(s string) {
	t.mu.Lock()
	t.b = nil
	t.mu.Unlock()
	_, _ = t.Write([]byte(s))
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
