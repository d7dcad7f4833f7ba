package hold

import (
	"bufio"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Config is what the bot gives a holder on its stdin (never in argv: it
// holds the session's secret and the CLI's environment).
type Config struct {
	Proto  int    `json:"proto"`
	Secret string `json:"secret"`
	// Dir is the holder's folder, made 0700 here: the socket, the journal
	// and the log live in it, and it is removed when the session ends.
	Dir     string   `json:"dir"`
	Path    string   `json:"path"`
	Args    []string `json:"args"`
	Env     []string `json:"env"`
	WorkDir string   `json:"work_dir"`
	// Orphan is how long the holder waits for a bot to attach before it
	// ends the CLI (DefaultOrphan when zero).
	Orphan time.Duration `json:"orphan"`
	// MaxJournal bounds the journal file (DefaultMaxJournal when zero).
	MaxJournal int64 `json:"max_journal"`
	// Overlay lays Env over the holder's own environment, which is then
	// the machine's login environment (a holder started over SSH, as
	// host/ssh starts every process); else Env is the whole of it.
	Overlay bool `json:"overlay,omitempty"`
	// Detach: the process started serves through a holder it starts in a
	// session of its own, and exits once that one is ready, so that what
	// started it is not kept waiting (over SSH: the session and its ssh
	// process end; the holder lives on, a child of init there).
	Detach bool `json:"detach,omitempty"`
}

// Ready is the holder's one line on its stdout once it serves.
type Ready struct {
	Pid int `json:"pid"` // the CLI's
	// Holder is the holder's pid when it is not the process started
	// (Config.Detach).
	Holder int    `json:"holder,omitempty"`
	Error  string `json:"error,omitempty"`
}

// Defaults.
const (
	DefaultOrphan     = time.Hour
	DefaultMaxJournal = 64 << 20
	// The steps of ending the CLI when no bot came back: stdin closed
	// (it exits about 100 ms later), then SIGTERM, then SIGKILL.
	endTerm = 5 * time.Second
	endKill = 5 * time.Second
	// helloWait bounds a client's hello.
	helloWait = 5 * time.Second
	// StderrTail is how much of the CLI's stderr the exit record keeps.
	StderrTail = 8 << 10
)

// SockName and the other names of the holder's folder.
const (
	SockName = "sock"
	logName  = "log"
)

// Main runs a holder: the config comes on in, the Ready line goes to out,
// which is closed then (the bot stops reading it). It returns the exit
// code of `untether hold`.
func Main(in io.Reader, out io.WriteCloser) int {
	var cfg Config
	if err := json.NewDecoder(io.LimitReader(in, 16<<20)).Decode(&cfg); err != nil {
		return ready(out, Ready{Error: "read config: " + err.Error()})
	}
	if cfg.Detach {
		return ready(out, detach(cfg))
	}
	h, err := newHolder(cfg)
	if err != nil {
		return ready(out, Ready{Error: err.Error()})
	}
	if code := ready(out, Ready{Pid: h.cmd.Process.Pid}); code != 0 {
		h.endCLI()
	}
	h.serve()
	return 0
}

func ready(out io.WriteCloser, r Ready) int {
	b, _ := json.Marshal(r)
	_, err := out.Write(append(b, '\n'))
	_ = out.Close()
	if r.Error != "" || err != nil {
		return 1
	}
	return 0
}

type holder struct {
	cfg Config
	log *slog.Logger
	ln  net.Listener
	cmd *exec.Cmd

	inMu  sync.Mutex // serializes writes to the CLI's stdin
	stdin io.WriteCloser

	mu      sync.Mutex
	closed  bool // stdin closed (under mu, not inMu: a stuck write holds inMu)
	j       *journal
	changed chan struct{} // closed and replaced on every change
	lastIn  uint64
	// inSeqs[i] is the record of input id inBase+1+i: a resend is acked
	// with its own record (the last keepAcks ids are kept).
	inBase uint64
	inSeqs []uint64
	tail   []byte
	exit   *Exit
	client *client // the attached client (nil: none)
	// newest is the client attached last, attached or not: its frames may
	// still be carried out (a write to a stuck stdin) after it left.
	newest   *client
	quit     bool
	detached time.Time     // when the last client left (or the holder started)
	done     chan struct{} // closed once the CLI has exited
	term     chan os.Signal
}

func newHolder(cfg Config) (*holder, error) {
	if cfg.Proto != Proto {
		return nil, fmt.Errorf("protocol %d asked, this holder speaks %d", cfg.Proto, Proto)
	}
	if cfg.Orphan <= 0 {
		cfg.Orphan = DefaultOrphan
	}
	if cfg.MaxJournal <= 0 {
		cfg.MaxJournal = DefaultMaxJournal
	}
	if err := checkRoot(filepath.Dir(cfg.Dir)); err != nil {
		return nil, err
	}
	// A folder already there is not ours (another user's, put in the way).
	if err := os.Mkdir(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("make holder folder: %w", err)
	}
	if err := os.Chmod(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("make holder folder private: %w", err)
	}
	// The bot is gone from a terminal's point of view: a hang-up is not
	// for us, and neither is the bot's SIGINT or SIGTERM (its own group).
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	// A SIGTERM meant for the holder itself (a shutdown of the machine)
	// ends the CLI cleanly, and the files go (serve); caught from before
	// the holder says it is ready.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	logf, err := os.OpenFile(filepath.Join(cfg.Dir, logName), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open holder log: %w", err)
	}
	h := &holder{cfg: cfg, log: slog.New(slog.NewTextHandler(logf, nil)), changed: make(chan struct{}), done: make(chan struct{}), term: term,
		detached: time.Now()}
	if h.j, err = openJournal(cfg.Dir, cfg.MaxJournal); err != nil {
		return nil, err
	}
	sock := filepath.Join(cfg.Dir, SockName)
	old := syscallUmask(0o177) // the socket is born 0600
	h.ln, err = net.Listen("unix", sock)
	syscallUmask(old)
	if err != nil {
		return nil, fmt.Errorf("listen on holder socket: %w", err)
	}
	if err := h.startCLI(); err != nil {
		_ = h.ln.Close()
		return nil, err
	}
	return h, nil
}

func syscallUmask(m int) int { return syscall.Umask(m) }

// checkRoot refuses a holders' root that another user could change: the
// holder's folder, journal and log are made in it by name, so whoever can
// rename or replace entries there can redirect them.
func checkRoot(root string) error {
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("check holders' folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("holders' folder %s is not a folder (%v)", root, fi.Mode().Type())
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("holders' folder %s is not owned by this user", root)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("holders' folder %s is open to others (mode %v): make it 0700", root, fi.Mode().Perm())
	}
	return nil
}

// startCLI starts the CLI in a session of its own: no signal meant for the
// bot or the holder reaches it, and its group can be signalled whole.
func (h *holder) startCLI() error {
	c := exec.Command(h.cfg.Path, h.cfg.Args...)
	c.Env, c.Dir = h.cfg.Env, h.cfg.WorkDir
	if h.cfg.Overlay {
		c.Env = append(os.Environ(), h.cfg.Env...)
	}
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, err := c.StdinPipe()
	if err != nil {
		return fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("stderr pipe: %w", err)
	}
	c.Stdout, c.Stderr = outW, errW
	if err := c.Start(); err != nil {
		return fmt.Errorf("start claude: %w", err)
	}
	_ = outW.Close()
	_ = errW.Close()
	h.cmd, h.stdin = c, in
	readers := make(chan struct{}, 2)
	go func() { h.readOut(outR); readers <- struct{}{} }()
	go func() { h.readErr(errR); readers <- struct{}{} }()
	go h.wait(outR, errR, readers)
	return nil
}

func (h *holder) broadcast() {
	close(h.changed)
	h.changed = make(chan struct{})
}

func (h *holder) readOut(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		var long *longLineError
		if errors.As(err, &long) {
			// Skipped, as the runner without a holder skips it: the CLI
			// must not block on its next write for want of a reader.
			h.log.Warn("skipped an over-long line from claude", "bytes", long.n, "max_bytes", maxLine)
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				h.log.Warn("reading claude stdout", "err", err)
			}
			return
		}
		h.mu.Lock()
		if _, err := h.j.add(false, line); err != nil {
			h.log.Warn("journal", "err", err)
		}
		h.broadcast()
		h.mu.Unlock()
	}
}

func (h *holder) readErr(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			h.mu.Lock()
			h.tail = append(h.tail, buf[:n]...)
			if len(h.tail) > StderrTail {
				h.tail = h.tail[len(h.tail)-StderrTail:]
			}
			if c := h.client; c != nil {
				c.stderr = append(c.stderr, string(buf[:n]))
			}
			h.broadcast()
			h.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// wait reaps the CLI; what is left of its output is read first (bounded:
// a tool's child may hold the pipes).
func (h *holder) wait(outR, errR *os.File, readers <-chan struct{}) {
	err := h.cmd.Wait()
	_ = syscall.Kill(-h.cmd.Process.Pid, syscall.SIGTERM) // orphans of its group
	for range 2 {
		select {
		case <-readers:
		case <-time.After(2 * time.Second):
			_ = outR.Close()
			_ = errR.Close()
		}
	}
	ex := Exit{Code: h.cmd.ProcessState.ExitCode()}
	if ws, ok := h.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		ex.Signal = ws.Signal().String()
	}
	if err != nil && ex.Code == 0 && ex.Signal == "" {
		ex.Code = -1
	}
	h.mu.Lock()
	ex.StderrTail = string(h.tail)
	h.exit = &ex
	h.broadcast()
	h.mu.Unlock()
	close(h.done)
	h.log.Info("claude exited", "code", ex.Code, "signal", ex.Signal)
}

// serve accepts clients until the session is over: the CLI has exited and
// a client said q, or no client was attached for cfg.Orphan.
func (h *holder) serve() {
	defer h.cleanup()
	conns := make(chan net.Conn)
	go func() {
		for {
			c, err := h.ln.Accept()
			if err != nil {
				close(conns)
				return
			}
			conns <- c
		}
	}()
	for {
		h.mu.Lock()
		attached, quit, changed, since := h.client != nil, h.quit, h.changed, h.detached
		h.mu.Unlock()
		// done is closed after wait's last broadcast, so it is waited on
		// too: a q read before it (the bot quits on the exit record) would
		// otherwise keep the holder until the orphan time. Once closed, it
		// is not (it would be ready for ever).
		exited := h.done
		select {
		case <-h.done:
			if quit {
				return
			}
			exited = nil
		default:
		}
		var orphan <-chan time.Time
		var t *time.Timer
		if !attached {
			t = time.NewTimer(h.cfg.Orphan - time.Since(since))
			orphan = t.C
		}
		select {
		case c, ok := <-conns:
			if !ok {
				return
			}
			go h.attach(c)
		case <-changed:
		case <-exited:
		case <-orphan:
			h.log.Info("no bot attached: ending claude", "after", h.cfg.Orphan)
			h.endCLI()
			return
		case sig := <-h.term:
			h.log.Info("ending claude", "signal", sig.String())
			h.endCLI()
			return
		}
		if t != nil {
			t.Stop()
		}
	}
}

// endCLI ends the CLI cleanly: stdin closed, then SIGTERM, then SIGKILL.
// The signals go on their timers whatever the close does: a CLI that
// does not read its stdin must end all the same.
func (h *holder) endCLI() {
	go h.closeStdin()
	for _, st := range []struct {
		wait time.Duration
		sig  syscall.Signal
	}{{endTerm, syscall.SIGTERM}, {endKill, syscall.SIGKILL}} {
		select {
		case <-h.done:
			return
		case <-time.After(st.wait):
			_ = syscall.Kill(-h.cmd.Process.Pid, st.sig)
		}
	}
	<-h.done
}

// closeStdin closes the CLI's stdin without taking inMu: a write stuck on
// a CLI that does not read holds it, and closing the file is what ends
// that write.
func (h *holder) closeStdin() {
	h.mu.Lock()
	closed := h.closed
	h.closed = true
	h.mu.Unlock()
	if !closed {
		_ = h.stdin.Close()
	}
}

// cleanup removes the session's files: nothing of it outlives it.
func (h *holder) cleanup() {
	_ = h.ln.Close()
	h.mu.Lock()
	h.j.close()
	h.mu.Unlock()
	if err := os.RemoveAll(h.cfg.Dir); err != nil {
		h.log.Warn("remove holder folder", "err", err)
	}
}

// keepAcks is how many input ids keep their record for a resend.
const keepAcks = 1024

var errReplaced = errors.New("a newer client took over")

// input writes a line of client cl once per id and returns its record:
// a resend is acked with the record its id got, a new line must be
// lastIn+1, and a client a newer one replaced writes nothing (the newer
// one numbers its lines from the welcome's LastIn).
func (h *holder) input(cl *client, id uint64, line []byte) (uint64, error) {
	h.inMu.Lock()
	defer h.inMu.Unlock()
	h.mu.Lock()
	if cl.replaced {
		h.mu.Unlock()
		return 0, errReplaced
	}
	if id <= h.lastIn {
		defer h.mu.Unlock()
		if id <= h.inBase {
			return 0, fmt.Errorf("input %d is too old to be acked again", id)
		}
		return h.inSeqs[id-h.inBase-1], nil
	}
	if id != h.lastIn+1 {
		last := h.lastIn
		h.mu.Unlock()
		return 0, fmt.Errorf("input %d out of order: the last was %d", id, last)
	}
	if h.closed {
		h.mu.Unlock()
		return 0, errors.New("claude's stdin is closed")
	}
	seq, err := h.j.add(true, line)
	if err == nil {
		h.lastIn = id
		h.inSeqs = append(h.inSeqs, seq)
		if len(h.inSeqs) > 2*keepAcks {
			drop := len(h.inSeqs) - keepAcks
			h.inSeqs = append([]uint64(nil), h.inSeqs[drop:]...)
			h.inBase += uint64(drop)
		}
	}
	h.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if _, err := h.stdin.Write(append(line, '\n')); err != nil {
		return seq, fmt.Errorf("write to claude: %w", err)
	}
	return seq, nil
}

func secretOK(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func parseUint(b []byte) (uint64, error) { return strconv.ParseUint(string(b), 10, 64) }
