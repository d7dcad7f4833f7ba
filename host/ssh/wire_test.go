package ssh_test

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/host/ssh"
)

// The agent's answers are not trusted: whatever runs as the host's user
// (Claude there, steered) can replace it. A bad answer is an error, never
// a panic of the bot, a call that never returns, or memory without bound.

// An answer without the file info it must carry is an error (it was a
// nil dereference: the bot panicked).
func TestAnswerWithoutInfo(t *testing.T) {
	h, _ := fakeSSH(t, "noinfo")
	ctx := context.Background()
	if _, err := h.Stat(ctx, "/x"); err == nil {
		t.Error("Stat: no error for an answer without file info")
	}
	if _, err := h.Lstat(ctx, "/x"); err == nil {
		t.Error("Lstat: no error for an answer without file info")
	}
	if _, _, err := h.Open(ctx, "/x", 100); err == nil {
		t.Error("Open: no error for an answer without file info")
	}
}

// An agent that never answers: a call without a deadline of its own ends
// with the host's, and other calls, Close and a signal are not held up
// by it (the session's lock was held across the whole round trip).
func TestSilentAgent(t *testing.T) {
	h, _ := fakeSSH(t, "silent")
	restore := ssh.SetCallTimeout(time.Second)
	defer restore()
	wedged := make(chan error, 1)
	go func() {
		_, err := h.Stat(context.Background(), "/x")
		wedged <- err
	}()
	// A call with its own short deadline returns with it, while the other
	// one is still waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := h.Lstat(ctx, "/y"); err == nil {
		t.Error("Lstat: no error from a silent agent")
	}
	select {
	case err := <-wedged:
		if err == nil {
			t.Error("Stat: no error from a silent agent")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a call without a deadline never returned from a silent agent")
	}
	closed := make(chan struct{})
	go func() { h.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("Close never returned")
	}
}

// An answer larger than the read asked for is refused, not taken whole.
func TestAnswerOverMax(t *testing.T) {
	h, _ := fakeSSH(t, "huge")
	ctx := patient(t)
	data, err := h.ReadFile(ctx, "/x", 1024)
	if !errors.Is(err, host.ErrTooBig) {
		t.Errorf("ReadFile(max 1024) of an 8 MiB answer: %d bytes, %v; want ErrTooBig", len(data), err)
	}
	if _, _, err := h.Open(ctx, "/x", 1024); !errors.Is(err, host.ErrTooBig) {
		t.Errorf("Open(max 1024) of an 8 MiB answer: %v; want ErrTooBig", err)
	}
}

// A request that changes something is not sent again when the session
// ended before its answer: it may have been done (a rename done twice
// fails, a signal sent twice is another signal).
func TestNoRetryOfChanges(t *testing.T) {
	h, logf := fakeSSH(t, "drop")
	ctx := context.Background()
	if err := h.Rename(ctx, "/a", "/b"); err == nil {
		t.Error("Rename: no error though the session ended unanswered")
	}
	if got := readLog(t, logf); !slices.Equal(got, []string{"rename"}) {
		t.Errorf("the agent was asked %v, want [rename] once", got)
	}
	_ = os.Remove(logf)
	// A read is asked again on a new session.
	if _, err := h.Stat(ctx, "/a"); err == nil {
		t.Error("Stat: no error")
	}
	if got := readLog(t, logf); !slices.Equal(got, []string{"stat", "stat"}) {
		t.Errorf("the agent was asked %v, want [stat stat]", got)
	}
}

// Start waits for the process's pid only as long as ctx lets it, and
// reads a pid line of bounded length.
func TestStartBoundedByContext(t *testing.T) {
	for _, mode := range []string{"nopid", "endless"} {
		t.Run(mode, func(t *testing.T) {
			h, _ := fakeSSH(t, mode)
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := h.Start(ctx, host.Cmd{Path: "/bin/true"})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Error("Start: no error without a pid")
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Start did not return when its context ended")
			}
		})
	}
}

// A listing of more entries than are taken is refused before it is
// decoded (an empty entry is 3 bytes on the wire and tens in memory: a
// few MiB of answer became gigabytes), and so is an entry whose name is
// no name ("..", "a/b"), which a caller would join to the folder's path.
func TestListingBounded(t *testing.T) {
	h, _ := fakeSSH(t, "bigdir")
	ctx := patient(t)
	if list, err := h.ReadDir(ctx, "/x"); !errors.Is(err, host.ErrTooBig) {
		t.Errorf("ReadDir of 2M entries: %d entries, %v; want ErrTooBig", len(list), err)
	}
	h, _ = fakeSSH(t, "badname")
	if list, err := h.ReadDir(ctx, "/x"); err == nil {
		t.Errorf("ReadDir listing %v: no error", list)
	}
}

// A file read in chunks takes no chunk larger than it asked for.
func TestChunkOverMax(t *testing.T) {
	h, _ := fakeSSH(t, "bigchunk")
	f, _, err := h.Open(patient(t), "/x", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, err := io.ReadAll(f); err == nil {
		t.Errorf("read %d bytes of an answer over the chunk asked for", len(data))
	}
}

// SIGKILL ends a process there for sure: Wait returns even when the agent
// ignores the request (and so runner.Session.Close, which waits for it
// after SIGKILL, returns too).
func TestWaitAfterSigkill(t *testing.T) {
	h, _ := fakeSSH(t, "immortal")
	p, err := h.Start(context.Background(), host.Cmd{Path: "/bin/true", WaitDelay: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Signal(syscall.SIGKILL)
	done := make(chan struct{})
	go func() { _, _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Error("Wait did not return after SIGKILL")
	}
}

// ssh takes a quoted keyword as the keyword ("Tunnel" yes is Tunnel yes:
// ssh -G shows it), so CheckArgs does too.
func TestCheckArgsQuotedKeys(t *testing.T) {
	for _, a := range [][]string{
		{"-o", `"Tunnel" point-to-point`},
		{"-o", `"RequestTTY" force`},
		{"-o", `"SessionType" none`},
		{`-o"RemoteCommand" sh`},
	} {
		if err := ssh.CheckArgs(a); err == nil {
			t.Errorf("CheckArgs(%q) = nil; ssh takes it as the refused option", a)
		}
	}
}

// A call whose context ends while it waits for its turn (its request
// never went out) leaves the session to the caller whose request is on
// it: that rename must not fail for it.
func TestQueuedTimeoutLeavesOthers(t *testing.T) {
	h, _ := fakeSSH(t, "slow")
	if err := h.Check(context.Background()); err != nil { // connected
		t.Fatal(err)
	}
	renamed := make(chan error, 1)
	go func() { renamed <- h.Rename(context.Background(), "/a", "/b") }()
	time.Sleep(200 * time.Millisecond) // the rename holds the turn (each answer takes 1 s)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _ = h.Stat(ctx, "/c")
	if err := <-renamed; err != nil {
		t.Errorf("Rename failed because another call timed out in the queue: %v", err)
	}
}
