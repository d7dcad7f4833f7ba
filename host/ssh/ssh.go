package ssh

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/redact"
)

// Options say how to reach a machine.
type Options struct {
	// Name is the host's name in the config, for messages.
	Name string
	// Dest is the destination as ssh takes it (user@host, host, an alias).
	Dest string
	// Args go before the destination (-p, -i, -F, -o …).
	Args []string
	// ControlDir holds the multiplexed connection's socket; it is made
	// 0700. Keep it short: a unix socket's path is limited (~100 bytes).
	ControlDir string
	// Agent is this machine's copy of the agent binary (untether itself),
	// copied to the host when missing there.
	Agent string
	// SSH is the ssh client; "" is "ssh" in the PATH.
	SSH string
	// StripValues are the bot's secrets: no variable of ssh's environment
	// holds one (a LANG sent on with SendEnv reaches the host's processes).
	StripValues []string
}

// Host is a machine reached over OpenSSH. Make it with New; it connects
// on first use and again after the connection dropped.
type Host struct {
	o       Options
	baseEnv []string
	ctlPath string
	env     sync.Map // key → value, the host's environment as read once

	mu     sync.Mutex
	remote string // the agent's path there, once placed
	sum    string // the agent's SHA-256, hex
	// ident is the agent file's identity there (agentIdent) when the
	// running agent was checked: a process is started only through an
	// agent whose file has not changed since.
	ident string
	ctl   *agentConn
	// forwards are the sockets made there, by the local socket they lead to.
	forwards map[string]forward
}

var _ host.Host = (*Host)(nil)

// New checks the options and makes the control folder; nothing connects yet.
func New(o Options) (*Host, error) {
	if o.Dest == "" || strings.HasPrefix(o.Dest, "-") {
		return nil, fmt.Errorf("ssh host %s: %q is not a destination", o.Name, o.Dest)
	}
	if err := CheckArgs(o.Args); err != nil {
		return nil, fmt.Errorf("ssh host %s: %w", o.Name, err)
	}
	if o.SSH == "" {
		o.SSH = "ssh"
	}
	// ssh names the socket ControlDir/<40 hex> and binds it first under
	// that name plus a 17-byte suffix; a unix socket's path holds ~104.
	if n := len(o.ControlDir) + 1 + 40 + 17; n > maxControlPath {
		return nil, fmt.Errorf("ssh host %s: the control folder %s is too long for ssh's socket (%d bytes, at most %d)",
			o.Name, o.ControlDir, n, maxControlPath)
	}
	if err := privateDir(o.ControlDir); err != nil {
		return nil, fmt.Errorf("ssh host %s: control folder: %w: %w", o.Name, ErrControlDir, err)
	}
	sum := sha256.Sum256([]byte(strings.Join(append([]string{o.Dest}, o.Args...), "\x00")))
	return &Host{o: o, baseEnv: redact.New(o.StripValues...).Env(clientEnv()), forwards: map[string]forward{},
		ctlPath: o.ControlDir + "/m-" + hex.EncodeToString(sum[:6])}, nil
}

// ErrControlDir is a control folder that cannot be used: it, or its
// parent, is another user's (or open to others).
var ErrControlDir = errors.New("the control folder is not this user's own")

// maxControlPath is what a unix socket's path may hold on Linux and macOS.
const maxControlPath = 104

// privateDir makes dir a 0700 folder of this user's, refusing a link or
// one someone else made, in a parent only this user (or root) can change
// (or a sticky one, like /tmp): the socket in it opens the connection to
// the host without a key, and a shared /tmp is where another user could
// have made the folders first.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	uid := os.Getuid()
	owner := func(fi os.FileInfo) int {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			return int(st.Uid)
		}
		return -1
	}
	parent := filepath.Dir(dir)
	pfi, err := os.Lstat(parent)
	if err != nil {
		return err
	}
	if o := owner(pfi); !pfi.IsDir() || (o != uid && o != 0) || (pfi.Mode().Perm()&0o022 != 0 && pfi.Mode()&os.ModeSticky == 0) {
		return fmt.Errorf("%s is not a folder only this user can change", parent)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() || owner(fi) != uid {
		return fmt.Errorf("%s is not a folder of this user's", dir)
	}
	return os.Chmod(dir, 0o700)
}

// clientEnv is all of the bot's environment ssh gets: what it needs to
// find the user's config, keys and agent. Nothing else (the bot's token,
// API keys) can reach the host through SendEnv or a ProxyCommand.
func clientEnv() []string {
	var env []string
	for _, k := range []string{"HOME", "USER", "LOGNAME", "PATH", "SSH_AUTH_SOCK", "LANG", "LC_ALL", "TERM"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// sshArgs are the options of every ssh the host runs: one multiplexed
// connection, never a question (BatchMode), never a host key that
// known_hosts does not hold, nothing forwarded, dead connections noticed.
func (h *Host) sshArgs(remote ...string) []string {
	args := []string{
		"-T",
		"-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes",
		"-o", "ControlMaster=auto",
		"-o", "ControlPath=" + h.controlPath(),
		"-o", "ControlPersist=10m",
		"-o", "ForwardAgent=no",
		"-o", "ForwardX11=no",
		"-o", "GSSAPIDelegateCredentials=no",
		"-o", "ClearAllForwardings=yes",
		"-o", "ServerAliveInterval=15",
		"-o", "ServerAliveCountMax=3",
		"-o", "ConnectTimeout=15",
	}
	args = append(args, h.o.Args...)
	return append(append(args, "--", h.o.Dest), remote...)
}

// controlPath is the multiplexed connection's socket, named by the
// destination and ssh_args (not ssh's %C, which needs the config read): a
// control command (control) reads no config to find it, and a host whose
// destination was edited never rides a master left to the old one.
func (h *Host) controlPath() string { return h.ctlPath }

// control runs an ssh control command (-O …) on the multiplexed
// connection. It reads no config file and gets none of ssh_args: a
// forward asked this way would carry the forwards the user's config
// names for the host (ssh sends them all to the master), which the
// connection itself was made without (ClearAllForwardings).
func (h *Host) control(ctx context.Context, args ...string) ([]byte, error) {
	all := append([]string{"-F", "none", "-o", "ControlPath=" + h.controlPath()}, args...)
	c := exec.CommandContext(ctx, h.o.SSH, append(all, "--", h.o.Dest)...)
	c.Env = h.baseEnv
	c.WaitDelay = 5 * time.Second
	out, err := c.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s: ssh %s: %w: %s", h.o.Name, strings.Join(args, " "), err, lastLine(string(out)))
	}
	return out, nil
}

// command is ssh running remote (one shell command line there).
func (h *Host) command(ctx context.Context, remote string) *exec.Cmd {
	c := exec.CommandContext(ctx, h.o.SSH, h.sshArgs(remote)...)
	c.Env = h.baseEnv
	c.WaitDelay = 5 * time.Second
	return c
}

// run runs remote there and returns its output; an ssh failure is
// classified (unreachable, host key).
func (h *Host) run(ctx context.Context, remote string, stdin io.Reader) ([]byte, error) {
	c := h.command(ctx, remote)
	var out, errb bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = stdin, &out, &errb
	err := c.Run()
	if err != nil {
		return out.Bytes(), h.sshError(err, errb.String())
	}
	return out.Bytes(), nil
}

// sshError says what went wrong in words a chat can act on. ssh exits
// 255 for its own failures; those are host.ErrUnreachable.
func (h *Host) sshError(err error, stderr string) error {
	stderr = strings.TrimSpace(stderr)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 255 {
		if stderr != "" {
			return fmt.Errorf("%s: %w: %s", h.o.Name, err, lastLine(stderr))
		}
		return fmt.Errorf("%s: %w", h.o.Name, err)
	}
	switch {
	case strings.Contains(stderr, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Errorf("ssh: the host key of %s has CHANGED since it was added to known_hosts: refused (someone may be in the middle; "+
			"if the machine was reinstalled, check its new key, then `ssh-keygen -R HOST` and connect once with `ssh %s`): %w",
			h.o.Dest, h.o.Dest, host.ErrUnreachable)
	case strings.Contains(stderr, "Host key verification failed") || strings.Contains(stderr, "No ED25519 host key is known") ||
		strings.Contains(stderr, "host key is known"):
		return fmt.Errorf("ssh: the host key of %s is not in known_hosts: refused; check its fingerprint and add it by connecting once "+
			"by hand (`ssh %s`), or with `ssh-keyscan HOST >> ~/.ssh/known_hosts` after checking: %w", h.o.Dest, h.o.Dest, host.ErrUnreachable)
	}
	if stderr == "" {
		stderr = err.Error()
	}
	return &host.Unreachable{Reason: "ssh: " + lastLine(stderr)}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return s
}

// agentPath places the agent on the machine (once per run, and again
// when it was found replaced): its OS and architecture must be this
// build's, its file is named by its hash and checked against the whole
// hash, so the agent there is this bot's own build.
func (h *Host) agentPath(ctx context.Context) (string, error) {
	h.mu.Lock()
	if h.remote != "" {
		defer h.mu.Unlock()
		return h.remote, nil
	}
	h.mu.Unlock()
	bin, err := os.ReadFile(h.o.Agent)
	if err != nil {
		return "", fmt.Errorf("reading the agent binary: %w", err)
	}
	sum := sha256.Sum256(bin)
	h.mu.Lock()
	h.sum = hex.EncodeToString(sum[:])
	h.mu.Unlock()
	name := "untether-agent-" + h.sum[:16]
	out, err := h.run(ctx, `uname -sm; printf '%s\n' "$HOME"; p="$HOME/.cache/untether/`+name+`"; `+h.hashIs(`"$p"`)+` && echo ok || echo missing`, nil)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		return "", fmt.Errorf("%s: unexpected answer to uname: %q", h.o.Name, out)
	}
	if want := unameOf(runtime.GOOS, runtime.GOARCH); lines[0] != want {
		return "", fmt.Errorf("%s runs %q, this bot is built for %q: install untether there built for it (docs/hosts.md)", h.o.Name, lines[0], want)
	}
	dir := lines[1] + "/.cache/untether"
	path := dir + "/" + name
	if lines[2] != "ok" {
		// Written under a temporary name, checked and moved, so a
		// half-copied agent is never run; 0700 in a 0700 folder.
		script := fmt.Sprintf(`set -e; d=%s; p=%s; umask 077; mkdir -p "$d"; chmod 700 "$d"; rm -f "$p.$$"; cat > "$p.$$"; chmod 700 "$p.$$"; %s; mv -f "$p.$$" "$p"`,
			quote(dir), quote(path), h.hashIs(`"$p.$$"`))
		if _, err := h.run(ctx, script, bytes.NewReader(bin)); err != nil {
			return "", fmt.Errorf("placing the agent on %s: %w", h.o.Name, err)
		}
	}
	h.mu.Lock()
	h.remote = path
	h.mu.Unlock()
	return path, nil
}

// hashIs is a shell test: the file (a quoted shell word) is a regular
// file, no link, whose SHA-256 is the agent's (sha256sum on Linux,
// shasum on macOS).
func (h *Host) hashIs(file string) string {
	h.mu.Lock()
	sum := h.sum
	h.mu.Unlock()
	return fmt.Sprintf(`{ [ -f %[1]s ] && [ ! -h %[1]s ] && [ "$( { sha256sum 2>/dev/null || shasum -a 256; } < %[1]s | cut -c1-64)" = %[2]s ]; }`, file, sum)
}

// staleAgent is the exit status of an agent session whose file was no
// longer this build's (verified).
const staleAgent = 97

// verified is a shell command that checks the agent at path before it
// runs, ending the session with staleAgent when it is not this build.
func (h *Host) verified(path string) string {
	return fmt.Sprintf(`%s || { printf 'untether: the agent at %%s is not this bot'"'"'s build\n' %s >&2; exit %d; }`,
		h.hashIs(quote(path)), quote(path), staleAgent)
}

// checkedAgent is the agent's path there, its file unchanged since the
// running agent session was checked against this build's hash (its
// identity, asked of that agent); a changed file is checked, and placed
// again, before anything is started through it.
func (h *Host) checkedAgent(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ {
		path, err := h.agentPath(ctx)
		if err != nil {
			return "", err
		}
		resp, err := h.call(ctx, request{Op: "ident", Path: path})
		if err != nil {
			return "", fmt.Errorf("%s: checking the agent: %w", h.o.Name, err)
		}
		h.mu.Lock()
		same := h.ident != "" && h.ident == resp.S
		h.mu.Unlock()
		if same {
			return path, nil
		}
		if attempt == 1 {
			return "", fmt.Errorf("%s: the agent at %s keeps changing: refused", h.o.Name, path)
		}
		// Changed since: the running session goes, the next is checked.
		h.mu.Lock()
		c := h.ctl
		h.mu.Unlock()
		if c != nil {
			h.drop(c)
		}
		h.forget()
	}
}

// unameOf is what `uname -sm` prints on a machine this build runs on.
func unameOf(goos, goarch string) string {
	sys := map[string]string{"linux": "Linux", "darwin": "Darwin"}[goos]
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "386": "i686"}[goarch]
	if goos == "darwin" && goarch == "arm64" {
		arch = "arm64"
	}
	return sys + " " + arch
}

// quote is s as one word for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// agentConn is the long-lived agent session: requests in order.
type agentConn struct {
	in  io.WriteCloser
	out *bufio.Reader
	// turn is held by the caller whose request is on the session: its
	// answer is the session's next line. Waiting for it is bounded by the
	// caller's context, so a silent agent wedges nobody but that caller.
	turn chan struct{}
	dead chan struct{}
	err  error // why it ended, once dead is closed
	// stale: the agent there was not this bot's build (exit 97), so it
	// never ran a request.
	stale bool
	kill  func()
}

// callTimeout bounds a call whose context has no deadline: an agent that
// stops answering is dropped, not waited on for ever.
var callTimeout = 30 * time.Second

// retryable are the requests sent again on a new session when the one
// they went out on ended before their answer: those that change nothing,
// or change it to the same end however often they run.
var retryable = map[string]bool{
	"hello": true, "stat": true, "lstat": true, "readlink": true, "resolve": true, "open": true, "readdir": true,
	"mkdirall": true, "writefile": true, "getenv": true, "lookpath": true, "descendants": true,
	"treecpu": true, "memtotal": true, "numcpu": true, "ident": true,
}

// call sends one request to the agent, connecting first when needed. A
// request that changes nothing is sent once more on a new session when
// the first one ended before answering.
func (h *Host) call(ctx context.Context, req request) (response, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	d, _ := ctx.Deadline()
	req.Timeout = max(1, time.Until(d).Milliseconds())
	for attempt := 0; ; attempt++ {
		c, err := h.conn(ctx)
		if err != nil {
			return response{}, err
		}
		resp, sent, err := h.exchange(ctx, c, req)
		if err == nil {
			return resp, resp.check(req)
		}
		if !sent && ctx.Err() != nil {
			// It gave up waiting for its turn: the session is another
			// caller's, and well.
			return response{}, err
		}
		h.drop(c)
		if h.stale(ctx, c) {
			sent = false // no agent of ours ran it
		}
		if attempt == 1 || ctx.Err() != nil || (sent && !retryable[req.Op]) {
			return response{}, err
		}
	}
}

// exchange is one request and its answer on c. sent says whether the
// request may have reached the agent.
func (h *Host) exchange(ctx context.Context, c *agentConn, req request) (resp response, sent bool, err error) {
	select {
	case c.turn <- struct{}{}:
	case <-c.dead:
		return response{}, false, c.err
	case <-ctx.Done():
		return response{}, false, fmt.Errorf("%s: waiting for the agent: %w", h.o.Name, ctx.Err())
	}
	type result struct {
		resp response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		// The turn is given back only once the answer is read: after an
		// abandoned request the session is dropped, and its next line
		// would be that request's answer.
		defer func() { <-c.turn }()
		var r result
		b, err := json.Marshal(req)
		if err == nil {
			_, err = c.in.Write(append(b, '\n'))
		}
		if err != nil {
			r.err = fmt.Errorf("%s: sending to the agent: %w", h.o.Name, err)
		} else if line, err := readAnswer(c.out, answerLimit(req)); err != nil {
			r.err = fmt.Errorf("%s: the agent's answer: %w", h.o.Name, err)
		} else if err := preCheck(req, line); err != nil {
			r.err = fmt.Errorf("%s: the agent's answer: %w", h.o.Name, err)
		} else if err := json.Unmarshal(line, &r.resp); err != nil {
			r.err = fmt.Errorf("%s: the agent's answer: %w", h.o.Name, err)
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r.resp, true, r.err
	case <-c.dead:
		return response{}, true, c.err
	case <-ctx.Done():
		return response{}, true, fmt.Errorf("%s: no answer from the agent: %w", h.o.Name, ctx.Err())
	}
}

// conn is the agent session, started when there is none. The agent's
// file is checked against this build's hash before it runs: whatever runs
// as the host's user could have replaced it since it was placed.
func (h *Host) conn(ctx context.Context) (*agentConn, error) {
	h.mu.Lock()
	c := h.ctl
	h.mu.Unlock()
	if c != nil {
		return c, nil
	}
	path, err := h.agentPath(ctx)
	if err != nil {
		return nil, err
	}
	// The session outlives ctx: it serves later calls.
	cmd := h.command(context.Background(), h.verified(path)+"; exec "+quote(path)+" host-agent")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errb := &tail{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting ssh: %w", err)
	}
	c = &agentConn{in: in, out: bufio.NewReader(out), turn: make(chan struct{}, 1), dead: make(chan struct{}),
		kill: func() { _ = cmd.Process.Kill() }}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		c.stale = errors.As(err, &ee) && ee.ExitCode() == staleAgent
		c.err = h.sshError(errors.Join(err, errors.New("the agent session ended")), errb.String())
		close(c.dead)
	}()
	// The file's identity now, while it is the file just checked: a
	// process is started later only if it is still the same.
	resp, _, err := h.exchange(ctx, c, request{Op: "ident", Path: path})
	if err == nil {
		err = resp.check(request{})
	}
	if err != nil {
		h.drop(c)
		h.stale(ctx, c)
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctl != nil { // another caller connected meanwhile
		go h.drop(c)
		return h.ctl, nil
	}
	h.ctl = c
	if h.remote == path {
		h.ident = resp.S
	}
	return c, nil
}

func (h *Host) drop(c *agentConn) {
	h.mu.Lock()
	if h.ctl == c {
		h.ctl = nil
	}
	h.mu.Unlock()
	_ = c.in.Close()
	c.kill()
}

// stale waits (as long as ctx lets it) for a dropped session to end and
// says whether it ended because the agent's file was not this build's;
// then the next use places it again.
func (h *Host) stale(ctx context.Context, c *agentConn) bool {
	select {
	case <-c.dead:
	case <-ctx.Done():
		return false
	}
	if c.stale {
		h.forget()
	}
	return c.stale
}

// forget makes the next use place the agent again.
func (h *Host) forget() {
	h.mu.Lock()
	h.remote, h.ident = "", ""
	h.mu.Unlock()
}

// Close ends the agent session and the multiplexed connection.
func (h *Host) Close() error {
	h.mu.Lock()
	c := h.ctl
	h.mu.Unlock()
	if c != nil {
		h.drop(c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = h.control(ctx, "-O", "exit") // no master running is fine
	return nil
}

// Check connects, places the agent and asks it for its protocol: the
// answer to "can the bot work there".
func (h *Host) Check(ctx context.Context) error {
	resp, err := h.call(ctx, request{Op: "hello"})
	if err == nil && resp.N != protoVersion {
		err = fmt.Errorf("%s: the agent speaks protocol %d, this bot %d", h.o.Name, resp.N, protoVersion)
	}
	return err
}
