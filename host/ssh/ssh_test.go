package ssh_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/host/ssh"
	"github.com/untether/untether/host/ssh/sshtest"
)

// The test binary is the agent, as untether is in production.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "host-agent" {
		os.Exit(ssh.AgentMain(os.Args[2:]))
	}
	if len(os.Args) > 3 && os.Args[1] == fakeSSHArg {
		os.Exit(fakeSSHMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

func newHost(t *testing.T, s *sshtest.Server) *ssh.Host { return s.Connect(t) }

// run starts argv there with env and waits.
func run(t *testing.T, h host.Host, env []string, argv ...string) (string, string, host.Exit) {
	t.Helper()
	var out, errb bytes.Buffer
	p, err := h.Start(context.Background(), host.Cmd{Path: argv[0], Args: argv[1:], Env: env, Stdout: &out, Stderr: &errb})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil {
		t.Fatalf("wait: %v", err)
	}
	return out.String(), errb.String(), ex
}

// A process there runs as the host's user, with exactly the environment
// it was given (nothing of the bot's), its stdin, output and exit status
// relayed.
func TestStartRunsThere(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	t.Setenv("UNTETHER_BOT_TOKEN", "123456:secret-token-of-the-bot")
	var out bytes.Buffer
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh", Args: []string{"-c", "id -un; env; cat; echo oops >&2; exit 3"},
		Env: []string{"PATH=/usr/bin:/bin", "MARK=given"}, Stdin: strings.NewReader("from stdin\n"), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil || ex.Code != 3 {
		t.Fatalf("Wait = %v, %v; want exit status 3", ex, err)
	}
	got := out.String()
	for _, want := range []string{sshtest.User + "\n", "MARK=given", "from stdin", "HOME=" + s.Home} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "secret-token") || strings.Contains(got, "UNTETHER_BOT_TOKEN") {
		t.Errorf("the bot's environment reached the host:\n%s", got)
	}
	if home := h.Getenv("HOME"); home != s.Home {
		t.Errorf("Getenv(HOME) = %q, want the host user's %q", home, s.Home)
	}
}

// Signal ends the process's whole group there; a context that ends kills
// it, and Wait says so promptly.
func TestSignalAndContextEndTheGroup(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh", Args: []string{"-c", "sleep 60 & wait"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil || ex.Signal == "" {
		t.Fatalf("Wait after SIGTERM = %v, %v; want killed by a signal", ex, err)
	}
	if kids, _ := h.Descendants(context.Background(), p.Pid()); len(kids) != 0 {
		t.Errorf("processes left below it: %v", kids)
	}

	ctx, cancel := context.WithCancel(context.Background())
	p, err = h.Start(ctx, host.Cmd{Path: "/bin/sleep", Args: []string{"60"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	start := time.Now()
	if _, err := p.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait after the context ended = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Wait took %v", d)
	}
	if err := h.Kill(context.Background(), []int{p.Pid()}, 0); err == nil {
		if _, err := h.Stat(context.Background(), "/proc/"+strconv.Itoa(p.Pid())); err == nil {
			t.Error("the process is still there after its context ended")
		}
	}
}

// The file operations follow safefile's rules there: a FIFO is refused
// without being waited on, a file over the cap is refused, a temporary
// file is 0600, links resolve there.
func TestFilesThere(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	ctx := context.Background()
	// A folder of its own: another test binary on this machine (another
	// package's, or another checkout's) logs into the same test user.
	dir := s.Dir(t, "files")
	if err := h.MkdirAll(ctx, dir+"/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := h.CreateTemp(ctx, dir, "up-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("hello there")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := h.Stat(ctx, w.Name())
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 11 {
		t.Fatalf("Stat(temp) = %v, %v; want 11 bytes, 0600", fi, err)
	}
	if err := h.Rename(ctx, w.Name(), dir+"/sub/file.txt"); err != nil {
		t.Fatal(err)
	}
	if got, err := h.ReadFile(ctx, dir+"/sub/file.txt", 100); err != nil || string(got) != "hello there" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if _, err := h.ReadFile(ctx, dir+"/sub/file.txt", 5); !errors.Is(err, host.ErrTooBig) {
		t.Errorf("ReadFile over the cap = %v, want ErrTooBig", err)
	}
	f, _, err := h.Open(ctx, dir+"/sub/file.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if real, err := f.RealPath(); err != nil || real != dir+"/sub/file.txt" {
		t.Errorf("RealPath = %q, %v", real, err)
	}
	f.Close()
	run(t, h, []string{"PATH=/usr/bin:/bin"}, "/bin/sh", "-c", "mkfifo "+dir+"/fifo && ln -s sub "+dir+"/link")
	start := time.Now()
	if _, err := h.ReadFile(ctx, dir+"/fifo", 0); !errors.Is(err, host.ErrNotRegular) {
		t.Errorf("ReadFile(FIFO) = %v, want ErrNotRegular", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the FIFO was waited on for %v", d)
	}
	if got, err := h.ResolveLinks(ctx, dir+"/link/file.txt"); err != nil || got != dir+"/sub/file.txt" {
		t.Errorf("ResolveLinks = %q, %v", got, err)
	}
	list, err := h.ReadDir(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "fifo link sub" {
		t.Errorf("ReadDir = %v", names)
	}
	if _, err := h.Stat(ctx, dir+"/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing) = %v, want ErrNotExist", err)
	}
	if n, err := h.MemTotal(ctx); err != nil || n < 64<<20 {
		t.Errorf("MemTotal = %d, %v", n, err)
	}
	// The test host is this machine: the agent counts its cores, at most
	// all of them (fewer if sshd's session has a smaller CPU quota).
	if n, err := h.NumCPU(ctx); err != nil || n < 1 || n > runtime.NumCPU() {
		t.Errorf("NumCPU = %d, %v; want 1 to %d", n, err, runtime.NumCPU())
	}
}

// A host key known_hosts does not hold, or holds another one for, is
// refused, and the error says what to do; a machine that is gone is
// unreachable. Both are host.ErrUnreachable.
func TestHostKeysAndUnreachable(t *testing.T) {
	s := sshtest.Start(t)
	good, err := os.ReadFile(s.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.KnownHosts, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = newHost(t, s).Check(context.Background())
	if !errors.Is(err, host.ErrUnreachable) || !strings.Contains(err.Error(), "not in known_hosts") {
		t.Errorf("unknown key: %v", err)
	}
	other := filepath.Join(t.TempDir(), "k")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	pub, _ := os.ReadFile(other + ".pub")
	line := strings.Fields(string(good))[0] + " " + string(pub)
	if err := os.WriteFile(s.KnownHosts, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	err = newHost(t, s).Check(context.Background())
	if !errors.Is(err, host.ErrUnreachable) || !strings.Contains(err.Error(), "CHANGED") {
		t.Errorf("changed key: %v", err)
	}
	if err := os.WriteFile(s.KnownHosts, good, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, s)
	if err := h.Check(context.Background()); err != nil {
		t.Fatalf("the right key: %v", err)
	}

	// The connection drops mid-process: Wait ends with an error at once.
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sleep", Args: []string{"60"}, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	h.Close() // the multiplexed connection ends
	start := time.Now()
	if _, err := p.Wait(); err == nil {
		t.Error("Wait after the connection dropped: no error")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Wait took %v after the drop", d)
	}

	s.Stop()
	err = newHost(t, s).Check(context.Background())
	if !errors.Is(err, host.ErrUnreachable) {
		t.Errorf("a stopped server: %v, want ErrUnreachable", err)
	}
}

// A process that ends on its own while its caller still holds its stdin
// open is waited for at once, without an error (exec would wait for the
// stdin copy).
func TestExitWhileStdinOpen(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// A Wait that waited for the open stdin would end only after
	// WaitDelay: two minutes, far from what the exit costs a loaded
	// machine (the bound was 3 s against ssh's default 5 s).
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh", Args: []string{"-c", "read line; echo got $line; exit 4"},
		Env: []string{"PATH=/usr/bin:/bin"}, Stdin: r, WaitDelay: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // as the runner does: the process has it
	if _, err := w.WriteString("one\n"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ex, err := p.Wait()
	if err != nil || ex.Code != 4 {
		t.Errorf("Wait = %v, %v; want exit status 4", ex, err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Wait took %v", d)
	}
}

// A socket of the bot's is reachable on the machine through the
// connection, at a path in the agent's private folder, 0600; a file put
// there is 0600 too.
func TestForwardSocketAndPutPrivate(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	local := pongSocket(t, dir)
	remote, err := h.ForwardSocket(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(remote, s.Home+"/.cache/untether/") {
		t.Errorf("the socket there is %s, want it in the agent's folder", remote)
	}
	fi, err := h.Lstat(ctx, remote)
	if err != nil || fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("Lstat(%s) = %v, %v; want a socket only its user opens", remote, fi, err)
	}
	// The machine is this one: connect where a process there would.
	c, err := net.Dial("unix", remote)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(c)
	c.Close()
	if string(got) != "pong\n" {
		t.Errorf("through the forward: %q", got)
	}
	if again, err := h.ForwardSocket(ctx, local); err != nil || again != remote {
		t.Errorf("asked again: %q, %v; want the same %q", again, err, remote)
	}

	p, err := h.PutPrivate(ctx, "cfg-*.json", []byte(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	fi, err = h.Stat(ctx, p)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != 7 {
		t.Errorf("Stat(%s) = %v, %v", p, fi, err)
	}
}

// More processes than sshd's 10 sessions a connection (its default
// MaxSessions, which sshtest keeps): OpenSSH's client opens a connection
// of its own for a session the multiplexed one is refused, so a host's
// cap is not sshd's (measured: 14 processes, 5 connections).
func TestMoreProcessesThanSessions(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	var procs []host.Process
	for i := range 14 {
		var out bytes.Buffer
		p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh", Args: []string{"-c", "echo started; sleep 30"},
			Env: []string{"PATH=/usr/bin:/bin"}, Stdout: &out})
		if err != nil {
			t.Fatalf("process %d: %v", i+1, err)
		}
		procs = append(procs, p)
	}
	for _, p := range procs {
		if err := p.Signal(syscall.SIGKILL); err != nil {
			t.Error(err)
		}
		if ex, _ := p.Wait(); ex.Signal == "" {
			t.Errorf("exit %v, want killed", ex)
		}
	}
}

// Forwarding the send_file socket forwards that socket only: not the
// forwards the user's ssh config names for the host, and after the
// connection was made again (its forwards gone with it) the socket is
// forwarded again rather than the dead one handed out.
func TestForwardSocketOnlyOursAndAgain(t *testing.T) {
	s := sshtest.Start(t)
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	leak := filepath.Join(s.Dir(t, "leak"), "config.sock")
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte("Host *\n  RemoteForward "+leak+" "+filepath.Join(dir, "x.sock")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, a := range s.Args {
		if a == "-F" {
			s.Args[i+1] = cfg
		}
	}
	h := s.Connect(t)
	local := pongSocket(t, dir)
	agent, err := h.AgentPath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(filepath.Dir(agent), "bot-*.sock"))
	through := func(remote string) string {
		c, err := net.Dial("unix", remote)
		if err != nil {
			return err.Error()
		}
		defer c.Close()
		got, _ := io.ReadAll(c)
		return string(got)
	}
	remote, err := h.ForwardSocket(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if got := through(remote); got != "pong\n" {
		t.Fatalf("through the forward: %q", got)
	}
	if _, err := os.Lstat(leak); err == nil {
		t.Error("the config's RemoteForward was set up on the host")
	}
	// The connection ends (Close ends the master); the host is used again.
	h.Close()
	if err := h.Check(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := h.ForwardSocket(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if got := through(again); got != "pong\n" {
		t.Errorf("after the connection was made again, through %s: %q", again, got)
	}
	if _, err := os.Lstat(leak); err == nil {
		t.Error("the config's RemoteForward was set up on the host")
	}
	// A new bot process (a new Host) forwards the same socket under the
	// same name: the socket files there do not pile up.
	h.Close()
	h2 := s.Connect(t)
	third, err := h2.ForwardSocket(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	if got := through(third); got != "pong\n" {
		t.Errorf("a new host, through %s: %q", third, got)
	}
	socks, _ := filepath.Glob(filepath.Join(filepath.Dir(remote), "bot-*.sock"))
	var made []string
	for _, f := range socks {
		if !slices.Contains(before, f) {
			made = append(made, f)
		}
	}
	if again != remote || third != remote || len(made) != 1 {
		t.Errorf("forwards at %s, %s, %s; socket files made there %v; want one name, one file", remote, again, third, made)
	}
}

// pongSocket is a unix socket in dir that answers "pong\n" to each
// connection, closed at the test's end.
func pongSocket(t *testing.T, dir string) string {
	t.Helper()
	local := filepath.Join(dir, "bot.sock")
	ln, err := net.Listen("unix", local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("pong\n"))
			c.Close()
		}
	}()
	return local
}
