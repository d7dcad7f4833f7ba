package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// A holder that cannot start leaves Claude running all the same, only not
// through a restart; the engine then hands out a Conn that is no
// engine.Held, so the bot records nothing to re-attach to.
func TestHeldFallsBackWithoutAHolder(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Hold = &Hold{Placement: hold.Placement{Self: filepath.Join(t.TempDir(), "no-such-untether"), Root: t.TempDir()}}
	e := &Engine{Base: opts}
	conn, err := e.Start(context.Background(), engine.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close(context.Background())
		for range conn.Events() {
		}
	})
	if _, held := conn.(engine.Held); held {
		t.Fatal("a session without a holder is an engine.Held")
	}
	if err := conn.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	for ev := range conn.Events() {
		if tc, ok := ev.(engine.TurnCompleted); ok {
			if tc.Result != "echo: hi" {
				t.Errorf("result %q", tc.Result)
			}
			return
		}
	}
	t.Fatal("no result")
}

// fakeHolder answers every hello on a socket in a fresh folder as a holder
// of protocol proto does to a bot of another: a welcome refusing it. It
// returns the handle a bot of that protocol would have recorded.
func fakeHolder(t *testing.T, proto int) hold.Handle {
	t.Helper()
	dir, err := os.MkdirTemp("", "hold-") // a short path: a socket's must fit 104 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, hold.SockName))
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
			_, _ = bufio.NewReader(c).ReadBytes('\n')
			b, _ := json.Marshal(hold.Welcome{Proto: proto, Error: fmt.Sprintf("protocol %d asked, this holder speaks %d", hold.Proto, proto)})
			_, _ = c.Write(append(b, '\n'))
			c.Close()
		}
	}()
	return hold.Handle{Proto: proto, Dir: dir, Secret: "s", Pid: 1, Holder: 1}
}

// A held session whose holder speaks another protocol (the bot was
// upgraded, or downgraded, between) is not gone: Claude still runs there.
// Reattach says so, naming both versions, so that the chat is told that,
// not that Claude crashed.
func TestReattachOtherVersion(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Hold = &Hold{Placement: hold.Placement{Self: "/nonexistent/untether", Root: t.TempDir()}}
	for _, proto := range []int{hold.Proto + 1, hold.Proto - 1} {
		h := fakeHolder(t, proto)
		handle, _ := json.Marshal(h)
		_, err := Reattach(context.Background(), opts, string(handle), 5)
		if !errors.Is(err, engine.ErrOtherVersion) || errors.Is(err, engine.ErrGone) {
			t.Fatalf("holder of protocol %d: err %v, want ErrOtherVersion (not ErrGone)", proto, err)
		}
		if want := fmt.Sprintf("protocol %d", proto); !strings.Contains(err.Error(), want) {
			t.Errorf("err %q does not name the holder's %s", err, want)
		}
		if _, err := os.Stat(h.Dir); err != nil {
			t.Errorf("the folder of a running holder was removed: %v", err)
		}
	}
}

// Between turns a holder of another protocol is ended (SIGTERM, which
// every version takes as "end your CLI cleanly"): nothing is lost, the
// next message resumes the conversation, and no second Claude runs on it.
func TestReattachOtherVersionIdleEndsIt(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Hold = &Hold{Placement: hold.Placement{Self: "/nonexistent/untether", Root: t.TempDir()}}
	holder := exec.Command("sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Process.Kill() })
	h := fakeHolder(t, hold.Proto+1)
	h.Holder = holder.Process.Pid
	handle, _ := json.Marshal(h)
	if _, err := Reattach(context.Background(), opts, string(handle), 0); !errors.Is(err, engine.ErrOtherVersion) {
		t.Fatalf("err %v, want ErrOtherVersion", err)
	}
	done := make(chan error, 1)
	go func() { done <- holder.Wait() }()
	select {
	case err := <-done:
		if ws, ok := holder.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGTERM {
			t.Errorf("the holder ended with %v, want SIGTERM", err)
		}
	case <-time.After(hangBound):
		t.Fatal("the idle holder of another protocol was left running")
	}
}

// unreachableHost is a host whose connection fails: nothing starts there.
type unreachableHost struct{ host.Local }

func (unreachableHost) Start(context.Context, host.Cmd) (host.Process, error) {
	return nil, fmt.Errorf("ssh: connect to host box: Connection refused: %w", host.ErrUnreachable)
}

// A bot started while the host of a held Claude does not answer cannot
// tell whether Claude runs: Reattach says the host is unreachable (after
// trying for Hold.ReattachWait), never that the session is gone.
func TestReattachUnreachableHost(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Host = unreachableHost{}
	opts.Hold = &Hold{Placement: hold.Placement{Self: "/untether", Root: "/hold"}, Bridge: true, ReattachWait: 300 * time.Millisecond}
	handle, _ := json.Marshal(hold.Handle{Proto: hold.Proto, Dir: "/hold/x", Secret: "s", Pid: 1, Holder: 1})
	begin := time.Now()
	_, err := Reattach(context.Background(), opts, string(handle), 3)
	if !errors.Is(err, host.ErrUnreachable) || errors.Is(err, engine.ErrGone) {
		t.Fatalf("err %v: want ErrUnreachable, not ErrGone", err)
	}
	// Under the default wait (20 s), which is what ignoring the option
	// would take; far above the 300 ms the tries really cost.
	if took := time.Since(begin); took < 300*time.Millisecond || took >= DefaultReattachWait/2 {
		t.Errorf("gave up after %v, want the 300ms wait", took)
	}
}
