package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// readerGrace bounds how long we wait for stdout/stderr to reach EOF after
// the CLI exited: a tool's background child may hold the pipes open.
const readerGrace = 2 * time.Second

type pipes struct {
	stdinR, stdinW   *os.File
	stdoutR, stdoutW *os.File
	stderrR, stderrW *os.File
	pty, tty         *os.File // one-shot mode: stdin is a terminal
}

// attach wires plain os.Pipes (not exec's copying goroutines) so that
// Wait returns when the process exits, whoever else holds the pipes. The
// one-shot terminal is opened here, on the bot's side, and handed to the
// host as the process's stdin like a pipe: the host needs no terminal of
// its own to offer (one over ssh would pass it on with -t).
func (s *Session) attach(cmd *host.Cmd) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.stdoutR, p.stdoutW, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if p.stderrR, p.stderrW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = p.stdoutW, p.stderrW
	if s.opts.Mode == OneShot {
		if p.pty, p.tty, err = openPTY(); err != nil {
			p.closeAll()
			return nil, fmt.Errorf("open pty for one-shot stdin: %w", err)
		}
		cmd.Stdin = p.tty
		return p, nil
	}
	if p.stdinR, p.stdinW, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	cmd.Stdin = p.stdinR
	return p, nil
}

func (p *pipes) closeChildEnds() {
	for _, f := range []*os.File{p.stdinR, p.stdoutW, p.stderrW, p.tty} {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (p *pipes) closeAll() {
	p.closeChildEnds()
	for _, f := range []*os.File{p.stdinW, p.stdoutR, p.stderrR, p.pty} {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (s *Session) readStdout(r io.Reader) {
	lr := newLineReader(r, s.opts.MaxLineBytes)
	dec := s.newDecoder()
	for {
		raw, skipped, err := lr.next()
		if skipped > 0 {
			s.logger().Warn("skipped an over-long line from claude", "bytes", skipped, "max_bytes", s.opts.MaxLineBytes)
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				s.logger().Warn("reading claude stdout failed", "err", err)
			}
			return
		}
		s.line(dec, raw, nil)
	}
}

func (s *Session) newDecoder() *decoder {
	dec := newDecoder(s.opts.WorkDir)
	dec.redact = s.opts.Redact
	return dec
}

// line decodes and handles one line of stdout. Requests in answered were
// answered already (a replay): they are neither asked again nor refused.
func (s *Session) line(dec *decoder, raw []byte, answered map[string]bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return
	}
	d, err := dec.decode(raw)
	if err != nil {
		// Log the shape, not the content: a line may carry file contents.
		s.logger().Warn("skipped a malformed line from claude", "err", err, "bytes", len(raw))
		return
	}
	if d.request != nil && answered[d.request.RequestID] {
		return
	}
	s.handle(d)
}

func (s *Session) handle(d decoded) {
	s.mu.Lock()
	for _, ev := range d.events {
		switch e := ev.(type) {
		case engine.SessionStarted:
			if e.SessionID != "" {
				s.sessionID = e.SessionID
			}
		case engine.TurnCompleted:
			if s.turns > 0 {
				s.turns--
			}
			s.steeredNext()
			if e.SessionID != "" {
				s.sessionID = e.SessionID
			}
			// No request outlives its turn.
			clear(s.pending)
		case engine.ApprovalCancelled:
			delete(s.pending, e.RequestID)
		case engine.PromptState:
			s.steeredState(e)
		case engine.ApprovalRequest:
			// Registered before the event is visible, so an answer can
			// never race ahead of the bookkeeping.
			s.pending[e.RequestID] = true
		}
	}
	if r := d.response; r != nil {
		if ch, ok := s.controls[r.RequestID]; ok {
			select {
			case ch <- *r:
			default:
			}
		}
	}
	s.mu.Unlock()

	if req := d.request; req != nil && len(d.events) == 0 {
		// Nobody handles this request; the CLI would wait forever for it.
		s.logger().Warn("refusing an unsupported control request from claude", "subtype", req.Subtype, "request_id", req.RequestID)
		go s.refuse(req.RequestID, "untether does not support control request subtype "+req.Subtype)
	}
	s.queue.Push(d.events...)
}

func (s *Session) refuse(requestID, msg string) {
	line, err := json.Marshal(map[string]any{
		"type":     "control_response",
		"response": map[string]any{"subtype": "error", "request_id": requestID, "error": msg},
	})
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ControlTimeout)
	defer cancel()
	if err := s.write(ctx, line); err != nil && !errors.Is(err, engine.ErrClosed) {
		s.logger().Warn("could not refuse control request", "request_id", requestID, "err", err)
	}
}

func (s *Session) readStderr(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			_, _ = s.stderrTail.Write(buf[:n])
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (s *Session) waitLoop(p *pipes, readersDone <-chan struct{}) {
	exit, waitErr := s.proc.Wait()
	// Tools Claude started share its process group; without Claude they
	// are orphans that may hold our pipes, so they go too.
	s.signal(syscall.SIGTERM)
	select {
	case <-readersDone:
	case <-time.After(readerGrace):
		// Unblock readers stuck on pipes a grandchild still holds.
		_ = p.stdoutR.Close()
		_ = p.stderrR.Close()
		<-readersDone
	}
	_ = p.stdoutR.Close()
	_ = p.stderrR.Close()
	if p.pty != nil {
		_ = p.pty.Close()
	}
	s.closeOnce.Do(func() { close(s.closing) })

	ex := engine.Exited{ExitCode: exit.Code, Signal: exit.Signal}
	if waitErr != nil {
		ex.Err = fmt.Errorf("wait for claude: %w", waitErr)
	}
	s.ended(ex)
}

// ended reports the end of the process: the last event, then the
// session is done.
func (s *Session) ended(ex engine.Exited) {
	s.mu.Lock()
	ex.StderrTail = s.cleanTail()
	ex.MidTurn = s.turns > 0
	clear(s.pending)
	s.exitEvent = &ex
	s.mu.Unlock()
	if ex.MidTurn && ex.Err == nil {
		ex.Err = fmt.Errorf("claude exited without finishing the turn (exit code %d%s)", ex.ExitCode, signalSuffix(ex.Signal))
	}
	s.logger().Debug("claude exited", "exit_code", ex.ExitCode, "signal", ex.Signal, "mid_turn", ex.MidTurn, "err", ex.Err)
	s.queue.Push(ex)
	s.queue.Close()
	close(s.exited)
}

func signalSuffix(sig string) string {
	if sig == "" {
		return ""
	}
	return ", signal " + sig
}

// Close ends the session. A running turn is interrupted first (the CLI then
// stops its tools and withdraws pending approvals; closing stdin alone would
// count as a denial and cost one more model call). Then stdin is closed (the
// CLI exits about 100 ms later), the process group gets SIGTERM after
// CloseGrace and SIGKILL after TermGrace. Tools the CLI started in their own
// sessions are found while the CLI lives and get the same signals. Close
// returns once the process has been waited for.
func (s *Session) Close(ctx context.Context) error {
	if s.held != nil && s.held.detached.Load() {
		// Left to its holder (Detach): nothing of it is this Session's
		// to end any more, its tools least of all.
		<-s.exited
		return nil
	}
	if s.opts.Mode == Interactive && s.inTurn() && !s.isClosing() {
		ictx, cancel := context.WithTimeout(ctx, min(s.opts.ControlTimeout, 2*time.Second))
		if err := s.Interrupt(ictx); err != nil {
			s.logger().Debug("interrupt before close failed", "err", err)
		}
		cancel()
	}
	tools := s.descendants()
	s.closeOnce.Do(func() { close(s.closing) })
	if s.opts.Mode == OneShot {
		// One-shot has no stdin to close; the turn is cut short on purpose.
		s.signal(syscall.SIGTERM)
	}
	steps := []struct {
		wait time.Duration
		sig  syscall.Signal
	}{{s.opts.CloseGrace, syscall.SIGTERM}, {s.opts.TermGrace, syscall.SIGKILL}}
	for _, st := range steps {
		t := time.NewTimer(st.wait)
		select {
		case <-s.exited:
			t.Stop()
			s.wg.Wait()
			s.signal(syscall.SIGKILL) // anything left of the group
			s.killAll(tools, syscall.SIGKILL)
			return nil
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		s.signal(st.sig)
		s.killAll(tools, st.sig)
	}
	<-s.exited
	s.wg.Wait()
	s.signal(syscall.SIGKILL)
	s.killAll(tools, syscall.SIGKILL)
	return nil
}

// descendants lists the processes below the CLI on its host, while it
// lives: Bash tools of the CLI run in sessions of their own, outside its
// process group, and once the CLI is gone they can no longer be found.
func (s *Session) descendants() []int {
	if s.proc == nil {
		return nil
	}
	pids, err := s.opts.Host.Descendants(context.Background(), s.proc.Pid())
	if err != nil {
		s.logger().Debug("could not list the processes below claude", "err", err)
	}
	return pids
}

// killAll signals processes found earlier; ones already gone are skipped.
func (s *Session) killAll(pids []int, sig syscall.Signal) {
	if len(pids) == 0 {
		return
	}
	_ = s.opts.Host.Kill(context.Background(), pids, sig)
}

// signal sends sig to the whole process group.
func (s *Session) signal(sig syscall.Signal) {
	if s.proc == nil {
		return
	}
	if err := s.proc.Signal(sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		s.logger().Warn("signal claude process group", "signal", sig.String(), "err", err)
	}
}

// drain reads and discards what the child writes to its terminal, so a
// chatty child can never block on a full PTY buffer.
func drain(r io.Reader) {
	_, _ = io.Copy(io.Discard, r)
}
