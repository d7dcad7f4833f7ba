package ssh

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/untether/untether/host"
)

var errUnsupported = errors.ErrUnsupported

// Start runs c there as a session of its own over the multiplexed
// connection: the agent starts it in a process group of its own and
// relays its output; the spec (environment included) goes on stdin.
// Unlike host.Local, c.Env is laid over the machine's own login
// environment (HOME, PATH, its own Claude login there): the bot's callers
// give a remote process only the values they set, never the bot's
// environment.
func (h *Host) Start(ctx context.Context, c host.Cmd) (host.Process, error) {
	path, err := h.checkedAgent(ctx)
	if err != nil {
		return nil, err
	}
	spec, err := json.Marshal(execSpec{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, WaitDelay: c.WaitDelay.Milliseconds()})
	if err != nil {
		return nil, err
	}
	// A caller hands an *os.File over as host.Local hands it to the
	// process, and may close its own copy once Start returns; here the
	// bot's side copies through it, so it keeps a copy of its own.
	in, out0, err0, closeDups, err := dupFiles(c.Stdin, c.Stdout, c.Stderr)
	if err != nil {
		return nil, err
	}
	c.Stdin, c.Stdout, c.Stderr = in, out0, err0
	cmd := h.command(context.WithoutCancel(ctx), quote(path)+" host-agent exec")
	// Stdin goes through a pipe of ours, not exec's copying: exec's Wait
	// would wait for a caller's stdin that stays open after the process
	// ended. The copier ends when the process does (closeDups).
	pr, pw, err := os.Pipe()
	if err != nil {
		closeDups()
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	go func() {
		_, _ = io.Copy(pw, io.MultiReader(strings.NewReader(string(spec)+"\n"), orEmpty(c.Stdin)))
		_ = pw.Close()
	}()
	cmd.Stdin = pr
	out, err := cmd.StdoutPipe()
	if err != nil {
		closeDups()
		_ = pr.Close()
		_ = pw.Close()
		return nil, err
	}
	var errTail tail
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(c.Stderr, &errTail)
	} else {
		cmd.Stderr = &errTail
	}
	if c.WaitDelay > 0 {
		cmd.WaitDelay = c.WaitDelay
	}
	err = cmd.Start()
	_ = pr.Close() // ssh has it
	if err != nil {
		closeDups()
		_ = pw.Close()
		return nil, fmt.Errorf("starting ssh: %w", err)
	}
	r := bufio.NewReader(out)
	pid, err := h.readPid(ctx, r)
	if err != nil {
		_ = cmd.Process.Kill()
		werr := cmd.Wait()
		closeDups()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s: starting %s: %w", h.o.Name, c.Path, ctx.Err())
		}
		return nil, h.startError(errors.Join(werr, err), errTail.String(), c.Path)
	}
	p := &process{h: h, cmd: cmd, pid: pid, copied: make(chan error, 1), done: make(chan struct{}), closeDups: closeDups, stdinW: pw}
	go func() {
		var err error
		if c.Stdout != nil {
			_, err = io.Copy(c.Stdout, r)
		} else {
			_, err = io.Copy(io.Discard, r)
		}
		p.copied <- err
	}()
	go p.watch(ctx)
	return p, nil
}

// readPid reads the exec session's first line, the process's pid there,
// for as long as ctx and callTimeout let it; the line is short.
func (h *Host) readPid(ctx context.Context, r *bufio.Reader) (int, error) {
	type result struct {
		pid int
		err error
	}
	got := make(chan result, 1)
	go func() {
		line, err := readAnswer(r, len(pidLine)+24)
		if err != nil {
			got <- result{err: err}
			return
		}
		s := strings.TrimSpace(string(line))
		pid, err := strconv.Atoi(strings.TrimPrefix(s, pidLine))
		if !strings.HasPrefix(s, pidLine) || err != nil || pid <= 0 {
			got <- result{err: fmt.Errorf("not a pid line: %.40q", s)}
			return
		}
		got <- result{pid: pid}
	}()
	t := time.NewTimer(callTimeout)
	defer t.Stop()
	select {
	case r := <-got:
		return r.pid, r.err
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, errors.New("no pid from the agent in time")
	}
}

// startError says why a process did not start there: the connection, or
// the program (the agent exits 127 when it cannot start it).
func (h *Host) startError(err error, stderr, prog string) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 127 {
		return fmt.Errorf("%s: %s: %w", h.o.Name, lastLine(stderr), exec.ErrNotFound)
	}
	return h.sshError(err, stderr)
}

// dupFiles replaces each *os.File among the process's files with a copy
// of its own (a duplicated descriptor), closed by the returned func.
func dupFiles(in io.Reader, out, errw io.Writer) (io.Reader, io.Writer, io.Writer, func(), error) {
	var dups []*os.File
	closeAll := func() {
		for _, f := range dups {
			_ = f.Close()
		}
	}
	dup := func(f *os.File) (*os.File, error) {
		fd, err := syscall.Dup(int(f.Fd()))
		if err != nil {
			return nil, fmt.Errorf("dup %s: %w", f.Name(), err)
		}
		syscall.CloseOnExec(fd)
		d := os.NewFile(uintptr(fd), f.Name())
		dups = append(dups, d)
		return d, nil
	}
	if f, ok := in.(*os.File); ok {
		d, err := dup(f)
		if err != nil {
			closeAll()
			return nil, nil, nil, nil, err
		}
		in = d
	}
	for _, w := range []*io.Writer{&out, &errw} {
		if f, ok := (*w).(*os.File); ok {
			d, err := dup(f)
			if err != nil {
				closeAll()
				return nil, nil, nil, nil, err
			}
			*w = d
		}
	}
	return in, out, errw, closeAll, nil
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}

// process is a process there.
type process struct {
	h      *Host
	cmd    *exec.Cmd
	pid    int
	copied chan error
	done   chan struct{}
	once   sync.Once
	killed error // ctx's error, when the host killed it for ctx
	mu     sync.Mutex
	// closeDups closes the copies of the caller's files (dupFiles).
	closeDups func()
	stdinW    *os.File // ssh's stdin, written by the copier
}

func (p *process) Pid() int { return p.pid }

// Signal signals the process's group there.
func (p *process) Signal(sig syscall.Signal) error {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, err := p.h.call(ctx, request{Op: "killgroup", Pid: p.pid, Sig: int(sig)})
	if sig == syscall.SIGKILL {
		// SIGKILL ends a process for sure; this one's end here is its
		// ssh session, which an agent that ignored the request, or output
		// held open there, would otherwise keep alive.
		_ = p.cmd.Process.Kill()
	}
	if err != nil && strings.Contains(err.Error(), "no such process") {
		return syscall.ESRCH
	}
	return err
}

// watch kills the group there when ctx ends first, as exec.CommandContext
// does locally.
func (p *process) watch(ctx context.Context) {
	select {
	case <-p.done:
	case <-ctx.Done():
		p.mu.Lock()
		p.killed = ctx.Err()
		p.mu.Unlock()
		_ = p.Signal(syscall.SIGKILL)
		_ = p.cmd.Process.Kill()
	}
}

// Wait gives the status there: the agent exits with the process's code,
// or 128+n for signal n; ssh's own 255 is a lost connection.
func (p *process) Wait() (host.Exit, error) {
	copyErr := <-p.copied
	err := p.cmd.Wait()
	p.once.Do(func() {
		close(p.done)
		p.closeDups()
		_ = p.stdinW.Close()
	})
	p.mu.Lock()
	killed := p.killed
	p.mu.Unlock()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return host.Exit{Code: -1}, errors.Join(err, copyErr)
	}
	if killed != nil {
		return host.Exit{Code: -1, Signal: "killed"}, killed
	}
	switch {
	case code == 255:
		return host.Exit{Code: -1}, &host.Unreachable{Reason: p.h.o.Name + ": the connection ended"}
	case code > 128 && code < 128+65:
		return host.Exit{Code: -1, Signal: syscall.Signal(code - 128).String()}, copyErr
	case code < 0: // ssh itself was killed
		return host.Exit{Code: -1, Signal: "killed"}, copyErr
	}
	return host.Exit{Code: code}, copyErr
}

// tail keeps the last few KB of stderr, for error messages.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

func (h *Host) LookPath(ctx context.Context, name string) (string, error) {
	resp, err := h.call(ctx, request{Op: "lookpath", Path: name})
	return resp.S, err
}

func (h *Host) Descendants(ctx context.Context, pid int) ([]int, error) {
	resp, err := h.call(ctx, request{Op: "descendants", Pid: pid})
	return resp.Pids, err
}

func (h *Host) Kill(ctx context.Context, pids []int, sig syscall.Signal) error {
	_, err := h.call(ctx, request{Op: "kill", Pids: pids, Sig: int(sig)})
	return err
}

func (h *Host) TreeCPU(ctx context.Context, pid int) (time.Duration, error) {
	resp, err := h.call(ctx, request{Op: "treecpu", Pid: pid})
	return time.Duration(resp.N), err
}

// MemTotal is the machine's memory (host.Memory).
func (h *Host) MemTotal(ctx context.Context) (int64, error) {
	resp, err := h.call(ctx, request{Op: "memtotal"})
	return resp.N, err
}

// NumCPU is the cores the machine's processes may use (host.CPUs).
func (h *Host) NumCPU(ctx context.Context) (int, error) {
	resp, err := h.call(ctx, request{Op: "numcpu"})
	return int(resp.N), err
}

// Getenv is the environment the machine's processes start from (the
// agent's, which sshd gave the login), remembered once read.
func (h *Host) Getenv(key string) string {
	if v, ok := h.env.Load(key); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	resp, err := h.call(ctx, request{Op: "getenv", Path: key})
	if err != nil {
		return ""
	}
	h.env.Store(key, resp.S)
	return resp.S
}

var (
	_ host.Memory = (*Host)(nil)
	_ host.CPUs   = (*Host)(nil)
)
