package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// A holder that dies while the bot runs (OOM killer, a crash, a tool's
// kill) leaves no journal: the session ends with "lost the holder" and the
// bot forgets the record, so its files go then (only Reattach, with the
// record, used to remove them; issue 22). docs/durability.md: "the journal
// must not outlive the session".
func TestHolderKilledWhileBotRunsLeavesNoJournal(t *testing.T) {
	hd := testHold(t)
	opts := fakeOpts(t, "echo")
	opts.Hold = hd
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil || h.Dir == "" {
		t.Fatalf("not held: %q %v", s.HoldHandle(), err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-h.Pid, syscall.SIGKILL) })
	if err := s.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	for ev := range s.Events() {
		if _, ok := ev.(engine.TurnCompleted); ok {
			break
		}
	}
	if err := syscall.Kill(h.Holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range s.Events() { // until Exited and the end
	}
	_ = s.Close(context.Background())
	// The holder's files go a moment after the session ends; waited for
	// as long as a hang takes, not a guessed half second.
	journal := filepath.Join(h.Dir, "journal")
	for deadline := time.Now().Add(hangBound); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(journal); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if _, err := os.Stat(journal); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the journal of a session that ended (its holder killed) is still there: %s (err %v)", h.Dir, err)
	}
}

// slowStart is this machine, slow to hand over a process it started: what
// the process does meanwhile is done before its starter goes on.
type slowStart struct{ host.Local }

func (h slowStart) Start(ctx context.Context, c host.Cmd) (host.Process, error) {
	p, err := h.Local.Start(ctx, c)
	time.Sleep(500 * time.Millisecond)
	return p, err
}

// What the CLI writes before the bot's first hello to its new holder (a
// start-up error, a hook's output) reaches the session: the first attach
// replays from record 1. It attached from 0 ("from now on"), and such a
// line was journaled but never delivered (issue 22).
func TestFirstAttachGetsEarlyOutput(t *testing.T) {
	hd := testHold(t)
	cli := filepath.Join(filepath.Dir(hd.Root), "cli")
	script := "#!/bin/sh\necho '{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"early-1\",\"model\":\"m\"}'\nexec /bin/cat >/dev/null\n"
	if err := os.WriteFile(cli, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	opts := fakeOpts(t, "echo")
	opts.Binary, opts.Host = cli, slowStart{}
	opts.Hold = hd
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil || h.Dir == "" {
		t.Fatalf("not held: %q %v", s.HoldHandle(), err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	got := make(chan engine.SessionStarted, 1)
	go func() {
		for ev := range s.Events() {
			if st, ok := ev.(engine.SessionStarted); ok {
				got <- st
			}
		}
	}()
	select {
	case st := <-got:
		if !strings.HasPrefix(st.SessionID, "early") {
			t.Fatalf("session %q, want early-1", st.SessionID)
		}
	case <-time.After(hangBound):
		t.Fatal("the CLI's first line (journaled before the bot attached) never reached the session")
	}
	_ = s.Close(context.Background())
}

// A held session skips a line over MaxLineBytes as one with pipes does
// (TestHugeLineIsSkipped): the holder's own cap is far above the runner's.
func TestHeldHugeLineIsSkipped(t *testing.T) {
	hd := testHold(t)
	s := startFake(t, "huge", func(o *Options) {
		o.MaxLineBytes = 1 << 20
		o.Hold = hd
	})
	if s.HoldHandle() == "" {
		t.Fatal("not held")
	}
	_ = s.Send(context.Background(), "go")
	txt := next[engine.Text](t, s)
	if txt.Text != "after the huge line" {
		t.Errorf("first text after the skipped line = %.40q", txt.Text)
	}
	if tc := next[engine.TurnCompleted](t, s); tc.Result != "survived" {
		t.Errorf("turn = %+v", tc)
	}
}

// testHold holds sessions with this test binary as the holder, in a
// folder of a short name (a socket's path must fit) removed with the test.
func testHold(t testing.TB) *Hold {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "rv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	return &Hold{Placement: hold.Placement{Self: exe, Root: filepath.Join(root, "hold"), Orphan: time.Minute}}
}
