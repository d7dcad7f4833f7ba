package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

var (
	// ErrNoControl is returned by control calls in one-shot mode.
	ErrNoControl = errors.New("one-shot mode has no control channel")
	// ErrControlTimeout is returned when the CLI does not answer a control request in time.
	ErrControlTimeout = errors.New("claude did not answer the control request in time")
)

// Session is one Claude Code process. Events arrive in order on Events();
// the channel closes after the final Exited event. Consumers must read it
// until it closes, or cancel the context given to Start.
type Session struct {
	opts Options
	proc host.Process

	events chan engine.Event
	queue  *engine.Queue

	// writes carries every line for stdin: one writer, so no caller can
	// block the stdout reader and lines never interleave.
	writes chan writeReq
	stdin  io.WriteCloser
	// held is the holder of a durable session (held.go), nil otherwise.
	held      *heldConn
	closeOnce sync.Once
	closing   chan struct{} // closed when Close starts or the process ends
	writerEnd chan struct{} // closed when the stdin writer has stopped
	exited    chan struct{} // closed when the process has been waited for
	abandon   chan struct{} // closed when the Start context ends

	mu         sync.Mutex
	sessionID  string
	pending    map[string]bool                 // CLI request ids awaiting our answer
	steered    map[string]bool                 // ids of messages Steer wrote that the CLI has not taken yet (steer.go)
	controls   map[string]chan controlResponse // our request ids awaiting the CLI
	turns      int                             // user messages sent and not yet answered by a result
	stderrTail tail
	exitEvent  *engine.Exited

	nextID atomic.Int64
	sentAt atomic.Uint64 // the journal record of the last prompt (held sessions)
	wg     sync.WaitGroup
}

type writeReq struct {
	data []byte
	done chan error
	seq  *uint64 // set to the journal record of a held session's line
}

// Start launches Claude Code in interactive mode: the process stays up
// across turns and reads user lines and control answers on stdin.
func Start(ctx context.Context, opts Options) (*Session, error) {
	opts = opts.withDefaults()
	opts.Mode = Interactive
	return start(ctx, opts, "")
}

func start(ctx context.Context, opts Options, prompt string) (*Session, error) {
	args, err := opts.args(prompt)
	if err != nil {
		return nil, err
	}
	bin, err := opts.Host.LookPath(ctx, opts.Binary)
	if errors.Is(err, host.ErrUnreachable) {
		// The machine did not answer: Claude Code may well be there.
		return nil, fmt.Errorf("look for claude binary %q: %w", opts.Binary, err)
	}
	if err != nil {
		return nil, fmt.Errorf("find claude binary %q (install Claude Code or set [claude] binary): %w", opts.Binary, err)
	}
	s := newSession(opts)

	if opts.Hold != nil && opts.Mode == Interactive {
		err := s.startHeld(ctx, bin, args)
		if err == nil {
			return s, nil
		}
		// Claude still runs, only not through a restart: better than no
		// Claude (a socket path too long for the system, say).
		s.logger().Warn("claude starts without a holder: it will stop with the bot", "err", err)
		s = newSession(opts)
	}
	cmd := host.Cmd{Path: bin, Args: args, Dir: opts.WorkDir, Env: opts.processEnv()}
	pipes, err := s.attach(&cmd)
	if err != nil {
		return nil, err
	}
	// The host starts it in its own process group, so Close can signal
	// Claude and every tool it started. The process ends by Close (stdin,
	// then signals), never by ctx: ctx ending calls Close below.
	proc, err := opts.Host.Start(context.WithoutCancel(ctx), cmd)
	if err != nil {
		pipes.closeAll()
		return nil, fmt.Errorf("start claude: %w", err)
	}
	s.proc = proc
	pipes.closeChildEnds()
	s.stdin = pipes.stdinW
	s.logger().Debug("claude started", "pid", proc.Pid(), "mode", opts.Mode)

	readersDone := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); s.readStdout(pipes.stdoutR) }()
	go func() { defer readers.Done(); s.readStderr(pipes.stderrR) }()
	go func() { readers.Wait(); close(readersDone) }()

	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.writeLoop() }()
	go func() { defer s.wg.Done(); s.waitLoop(pipes, readersDone) }()
	// The pump is not in wg: it lives until the consumer has read
	// everything (or the Start context ends), which Close must not wait for.
	go s.queue.Pump(s.events, s.abandon)
	if pipes.pty != nil {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); drain(pipes.pty) }()
	}
	go func() {
		select {
		case <-ctx.Done():
			close(s.abandon)
			_ = s.Close(context.Background())
		case <-s.exited:
		}
	}()
	return s, nil
}

func newSession(opts Options) *Session {
	s := &Session{
		opts:      opts,
		events:    make(chan engine.Event),
		queue:     engine.NewQueue(),
		writes:    make(chan writeReq, 16),
		closing:   make(chan struct{}),
		writerEnd: make(chan struct{}),
		exited:    make(chan struct{}),
		abandon:   make(chan struct{}),
		pending:   map[string]bool{},
		steered:   map[string]bool{},
		controls:  map[string]chan controlResponse{},
	}
	s.sessionID = opts.Resume
	// A one-shot process is a turn from its first moment.
	if opts.Mode == OneShot {
		s.turns = 1
	}
	s.stderrTail.n = opts.StderrTail
	return s
}

// Events delivers the session's events in order.
func (s *Session) Events() <-chan engine.Event { return s.events }

// Done is closed when the process has exited.
func (s *Session) Done() <-chan struct{} { return s.exited }

// SessionID is the Claude session id, known after the first turn starts
// (or at once when resuming).
func (s *Session) SessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessionID
}

// Pid is the process id of the CLI.
func (s *Session) Pid() int { return s.proc.Pid() }

// TreeCPU implements engine.CPUMeter: the CPU time of the CLI and the
// tools it started, read on the machine it runs on (held there too).
func (s *Session) TreeCPU(ctx context.Context) (time.Duration, error) {
	d, err := s.opts.Host.TreeCPU(ctx, s.proc.Pid())
	if err != nil {
		return 0, fmt.Errorf("cpu time of claude's processes: %w", err)
	}
	return d, nil
}

// StderrTail returns the last bytes the CLI wrote to stderr, secrets
// removed (Options.Redact).
func (s *Session) StderrTail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cleanTail()
}

// cleanTail is the stderr tail, redacted; s.mu is held.
func (s *Session) cleanTail() string {
	if s.opts.Redact == nil {
		return s.stderrTail.String()
	}
	return s.opts.Redact(s.stderrTail.String())
}

// Send writes one user message; the CLI queues it if a turn is running.
func (s *Session) Send(ctx context.Context, text string) error {
	return s.SendAs(ctx, "", text)
}

// SendAs implements engine.PromptIDs: Send, with the message's id (a UUID)
// chosen by the caller, the id rewind_files knows it by ("": the CLI's own).
func (s *Session) SendAs(ctx context.Context, id, text string) error {
	if s.opts.Mode != Interactive {
		return ErrNoControl
	}
	line, err := userLine(id, text, "")
	if err != nil {
		return err
	}
	// Counted before it is written: the CLI's command_lifecycle "started"
	// for it may be read before the write returns, and one with no turn
	// counted is taken for a steered line's own turn (steeredState).
	s.mu.Lock()
	s.turns++
	s.mu.Unlock()
	// Until the line has its record, SentAt says none: the previous
	// prompt's would make a restart replay that turn as this one's
	// (engine.Held).
	s.sentAt.Store(0)
	seq, err := s.writeSeq(ctx, line)
	if errors.Is(err, errWritePending) {
		// The CLI runs it once written: reported failed, the bot would
		// run it again. Its journal record is not known: no trim.
		s.logger().Warn("a prompt waits for the writer: taken as sent", "err", err)
		return nil
	}
	if err != nil {
		s.mu.Lock()
		s.turns = max(s.turns-1, 0)
		s.mu.Unlock()
		return fmt.Errorf("send user message: %w", err)
	}
	s.sentAt.Store(seq)
	if s.held != nil && seq > 1 {
		// No re-attach replays what came before a prompt: the holder's
		// journal may drop it.
		_ = s.held.Client().Trim(seq - 1)
	}
	return nil
}

// logger carries the session id known so far.
func (s *Session) logger() *slog.Logger {
	return s.opts.Logger.With("session_id", s.SessionID())
}

// inTurn reports whether a turn is running or queued in the CLI.
func (s *Session) inTurn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turns > 0
}

// Allow answers a can_use_tool request. updatedInput, when set, replaces
// the tool input (that is what runs); updatedPermissions are applied by the
// CLI ("always allow").
func (s *Session) Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error {
	resp := map[string]any{"behavior": "allow"}
	if len(updatedInput) > 0 {
		resp["updatedInput"] = updatedInput
	}
	if len(updatedPermissions) > 0 {
		resp["updatedPermissions"] = updatedPermissions
	}
	return s.answer(ctx, requestID, resp)
}

// Deny refuses a can_use_tool request. message becomes the tool result
// Claude sees; interrupt also ends the turn.
func (s *Session) Deny(ctx context.Context, requestID, message string, interrupt bool) error {
	return s.answer(ctx, requestID, map[string]any{"behavior": "deny", "message": message, "interrupt": interrupt})
}

func (s *Session) answer(ctx context.Context, requestID string, resp map[string]any) error {
	if s.opts.Mode != Interactive {
		return ErrNoControl
	}
	s.mu.Lock()
	if !s.pending[requestID] {
		s.mu.Unlock()
		if s.isClosing() {
			return fmt.Errorf("answer request %s: %w", requestID, engine.ErrClosed)
		}
		return fmt.Errorf("answer request %s: %w", requestID, engine.ErrUnknownRequest)
	}
	delete(s.pending, requestID)
	s.mu.Unlock()
	line, err := json.Marshal(map[string]any{
		"type": "control_response",
		"response": map[string]any{
			"subtype":    "success",
			"request_id": requestID,
			"response":   resp,
		},
	})
	if err != nil {
		return fmt.Errorf("encode answer to %s: %w", requestID, err)
	}
	if err := s.write(ctx, line); err != nil {
		return fmt.Errorf("answer request %s: %w", requestID, err)
	}
	return nil
}

// Pending lists the CLI request ids still waiting for an answer.
func (s *Session) Pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.pending))
	for id := range s.pending {
		ids = append(ids, id)
	}
	return ids
}

// Interrupt stops the running turn; the session stays usable. User lines
// written but not yet taken in (Steer) are dropped with it
// (cancel_queued): without it the CLI runs them afterwards.
func (s *Session) Interrupt(ctx context.Context) error {
	_, err := s.control(ctx, map[string]any{"subtype": "interrupt", "cancel_queued": true})
	return err
}

// SetPermissionMode switches the permission mode of the live session.
func (s *Session) SetPermissionMode(ctx context.Context, mode string) error {
	_, err := s.control(ctx, map[string]any{"subtype": "set_permission_mode", "mode": toClaudeMode(mode)})
	return err
}

func (s *Session) control(ctx context.Context, req map[string]any) (json.RawMessage, error) {
	if s.opts.Mode != Interactive {
		return nil, ErrNoControl
	}
	id := "untether_" + strconv.FormatInt(s.nextID.Add(1), 10)
	subtype, _ := req["subtype"].(string)
	line, err := json.Marshal(map[string]any{"type": "control_request", "request_id": id, "request": req})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", subtype, err)
	}
	ch := make(chan controlResponse, 1)
	s.mu.Lock()
	s.controls[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.controls, id)
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(ctx, s.opts.ControlTimeout)
	defer cancel()
	if err := s.write(ctx, line); err != nil {
		return nil, fmt.Errorf("%s: %w", subtype, err)
	}
	select {
	case r := <-ch:
		if r.Subtype == "error" {
			return nil, fmt.Errorf("%s refused by claude: %s", subtype, r.Error)
		}
		return r.Response, nil
	case <-s.closing:
		return nil, fmt.Errorf("%s: %w", subtype, engine.ErrClosed)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: %w", subtype, ErrControlTimeout)
		}
		return nil, fmt.Errorf("%s: %w", subtype, ctx.Err())
	}
}

func (s *Session) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// write hands a line to the single stdin writer and waits until it is written.
func (s *Session) write(ctx context.Context, line []byte) error {
	_, err := s.writeSeq(ctx, line)
	return err
}

// errWritePending: ctx ended after the line was handed to the writer: it
// is written when the writer gets to it (a held session's link may be down
// for minutes), unless the process ends first.
var errWritePending = errors.New("handed to the writer, not written yet")

// writeSeq is write, also saying the journal record of the line in a held
// session (0 otherwise). An error other than errWritePending means the
// line was not written.
func (s *Session) writeSeq(ctx context.Context, line []byte) (uint64, error) {
	req := writeReq{data: append(line, '\n'), done: make(chan error, 1), seq: new(uint64)}
	if s.isClosing() {
		return 0, engine.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	select {
	case s.writes <- req:
	case <-s.closing:
		return 0, engine.ErrClosed
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	select {
	case err := <-req.done:
		return *req.seq, err
	case <-s.writerEnd:
		// The writer stopped after this line was queued: it was never written.
		select {
		case err := <-req.done:
			return *req.seq, err
		default:
			return 0, engine.ErrClosed
		}
	case <-ctx.Done():
		return 0, fmt.Errorf("%w: %w", errWritePending, ctx.Err())
	}
}

func (s *Session) writeLoop() {
	defer close(s.writerEnd)
	var failed error
	for {
		select {
		case req := <-s.writes:
			if failed == nil {
				if _, err := s.stdin.Write(req.data); err != nil {
					failed = fmt.Errorf("write to claude stdin: %w", err)
				} else if s.held != nil {
					*req.seq = s.held.lastSeq
				}
			}
			req.done <- failed
		case <-s.closing:
			// Lines not yet written are refused, then stdin is closed: the
			// CLI exits shortly after EOF.
			for drained := false; !drained; {
				select {
				case req := <-s.writes:
					req.done <- engine.ErrClosed
				default:
					drained = true
				}
			}
			_ = s.stdin.Close()
			return
		}
	}
}
