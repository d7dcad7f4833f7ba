// Package sshtest runs the distribution's OpenSSH server on 127.0.0.1 for
// tests, logging into a test user it creates: a real "other machine" for
// host/ssh and the code above it. It needs root (to create the user and
// run sshd); without root or sshd a test skips, unless
// UNTETHER_TEST_SSHD=1 (CI) makes that a failure.
package sshtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/host/ssh"
)

// User is the test user the server logs into.
const User = "untether-test"

const sshd = "/usr/sbin/sshd"

// Server is a running sshd.
type Server struct {
	Port int
	// Args are what the client needs: its key, the known_hosts holding the
	// server's key, the port; as [hosts.NAME] ssh_args.
	Args []string
	// Dest is User@127.0.0.1.
	Dest string
	// Home is the test user's home there.
	Home string
	// KnownHosts is the file Args names; tests may empty it.
	KnownHosts string
	cmd        *exec.Cmd
}

// Start starts a server for the test; it stops at the test's end.
func Start(t testing.TB) *Server {
	t.Helper()
	must := os.Getenv("UNTETHER_TEST_SSHD") == "1"
	skip := func(why string) {
		if must {
			t.Fatalf("sshd test server: %s (UNTETHER_TEST_SSHD=1)", why)
		}
		t.Skip("sshd test server: " + why)
	}
	if os.Geteuid() != 0 {
		skip("needs root, to create the test user and run sshd")
	}
	if _, err := os.Stat(sshd); err != nil {
		skip("no " + sshd + " (apt-get install openssh-server)")
	}
	home := ensureUser(t)
	// Not t.TempDir: its parent is 0700, and sshd reads the keys file as
	// the test user.
	dir, err := os.MkdirTemp("", "sshtest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "host_key"))
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "client_key"))
	pub, err := os.ReadFile(filepath.Join(dir, "client_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "authorized_keys")
	write(t, keys, string(pub), 0o644)
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cfg := filepath.Join(dir, "sshd_config")
	write(t, cfg, strings.Join([]string{
		"ListenAddress 127.0.0.1",
		fmt.Sprintf("Port %d", port),
		"HostKey " + filepath.Join(dir, "host_key"),
		"AuthorizedKeysFile " + keys,
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		"AllowUsers " + User,
		"PidFile " + filepath.Join(dir, "sshd.pid"),
		"LogLevel ERROR",
		// MaxSessions is left at sshd's default (10), as on a real host.
		"MaxStartups 100",
		"",
	}, "\n"), 0o600)
	hostPub, err := os.ReadFile(filepath.Join(dir, "host_key.pub"))
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(dir, "known_hosts")
	write(t, known, fmt.Sprintf("[127.0.0.1]:%d %s", port, hostPub), 0o644)
	cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	s := &Server{Port: port, Dest: User + "@127.0.0.1", Home: home, KnownHosts: known, cmd: cmd,
		Args: []string{"-p", fmt.Sprint(port), "-i", filepath.Join(dir, "client_key"), "-F", "none",
			"-o", "UserKnownHostsFile=" + known, "-o", "GlobalKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes"}}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	// A hang's bound, not a speed goal: sshd starts in milliseconds, a
	// loaded machine's in seconds.
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd did not listen: %v\n%s", err, errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server (a machine that went away).
func (s *Server) Stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// ensureUser creates the test user once (kept between runs) and returns
// its home.
func ensureUser(t testing.TB) string {
	if u, err := user.Lookup(User); err == nil {
		return u.HomeDir
	}
	run(t, "useradd", "--create-home", "--shell", "/bin/sh", User)
	// No password, but not locked: sshd refuses a locked account even a
	// key login.
	run(t, "usermod", "-p", "*", User)
	u, err := user.Lookup(User)
	if err != nil {
		t.Fatal(err)
	}
	return u.HomeDir
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func write(t testing.TB, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Claude copies the CLI at local (the pinned one, under root's 0700 home)
// to a folder the test user can run it from, once per build, and returns
// its path there.
func Claude(t testing.TB, local string) string {
	t.Helper()
	return Program(t, local, "claude")
}

// Program is Claude for any program of one file (Codex's native binary):
// name begins its file's name there.
func Program(t testing.TB, local, name string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(local)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	dst := fmt.Sprintf("/opt/untether-test/%s-%d-%d", name, fi.Size(), fi.ModTime().Unix())
	if _, err := os.Stat(dst); err == nil {
		return dst
	}
	if err := os.MkdirAll("/opt/untether-test", 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := fmt.Sprintf("%s.%d", dst, os.Getpid())
	run(t, "cp", real, tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// Dir makes a folder of the test user's, in its home, removed at the
// test's end.
func (s *Server) Dir(t testing.TB, name string) string {
	t.Helper()
	u, err := user.Lookup(User)
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := atoi(t, u.Uid), atoi(t, u.Gid)
	d, err := os.MkdirTemp(s.Home, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(d, uid, gid); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func atoi(t testing.TB, s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Connect is a host over the server with this test binary as its agent
// (the test's TestMain must run ssh.AgentMain for "host-agent"), closed at
// the test's end.
func (s *Server) Connect(t testing.TB) *ssh.Host {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ctl) })
	h, err := ssh.New(ssh.Options{Name: "box", Dest: s.Dest, Args: s.Args, ControlDir: ctl, Agent: self})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
