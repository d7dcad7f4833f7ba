package ssh_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/host/ssh"
	"github.com/untether/untether/host/ssh/sshtest"
)

// A host whose destination was edited never rides a master left to the
// old one (ssh's multiplexing does not compare destinations; the socket's
// name does).
func TestEditedDestinationNotTheOldMaster(t *testing.T) {
	srv := sshtest.Start(t)
	self, _ := os.Executable()
	ctl, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ctl) }) // after the hosts' Close, which needs the socket
	mk := func(dest string) *ssh.Host {
		h, err := ssh.New(ssh.Options{Name: "box", Dest: dest, Args: srv.Args, ControlDir: ctl, Agent: self})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		return h
	}
	if err := mk(srv.Dest).Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := mk("nobody@no-such-host.invalid").Check(ctx); err == nil {
		t.Error("a host for no-such-host.invalid passed Check: it rode the master to " + srv.Dest)
	}
}

// A process that exits while something it started (in a session of its
// own) holds its output: Wait returns WaitDelay after the exit, as
// host.Local's does, not when the holder lets go (the agent relayed until
// the end of the output, and sshd's own pipes were the process's).
func TestHeldOutputDoesNotKeepWait(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv)
	var out bytes.Buffer
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/sh",
		Args: []string{"-c", "setsid sleep 40 & echo started"}, Stdout: &out, WaitDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _, _ = p.Wait(); close(done) }()
	select {
	case <-done:
		if out.String() != "started\n" {
			t.Errorf("output %q", out.String())
		}
	case <-time.After(20 * time.Second):
		t.Error("Wait still blocked 20 s after the process exited (WaitDelay 1 s)")
	}
}

// A file without a cap, or larger than one answer, is read there in
// chunks: whole and exact, and a cap is kept.
func TestChunkedReadThere(t *testing.T) {
	srv := sshtest.Start(t)
	h := newHost(t, srv)
	ctx := context.Background()
	data := make([]byte, 3<<20+17)
	_, _ = rand.Read(data)
	path := filepath.Join(srv.Dir(t, "big"), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, fi, err := h.Open(ctx, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil || !bytes.Equal(got, data) || fi.Size() != int64(len(data)) {
		t.Errorf("Open(max 0) read %d bytes (%v), size %d; want %d", len(got), err, fi.Size(), len(data))
	}
	if got, err := h.ReadFile(ctx, path, 0); err != nil || !bytes.Equal(got, data) {
		t.Errorf("ReadFile(max 0): %d bytes, %v", len(got), err)
	}
	if got, err := h.ReadFile(ctx, path, 4<<20); err != nil || !bytes.Equal(got, data) {
		t.Errorf("ReadFile(max 4 MiB): %d bytes, %v", len(got), err)
	}
	if _, err := h.ReadFile(ctx, path, 2<<20); !errors.Is(err, host.ErrTooBig) {
		t.Errorf("ReadFile(max 2 MiB) of 3 MiB: %v, want ErrTooBig", err)
	}
	// Files are closed there: more opens than the agent keeps at once.
	for i := range 100 {
		f, _, err := h.Open(ctx, path, 0)
		if err != nil {
			t.Fatalf("open %d: %v", i+1, err)
		}
		f.Close()
	}
}
