package codex_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	sshhost "github.com/untether/untether/host/ssh"
)

func TestMain(m *testing.M) {
	// The test binary is the holder of held sessions, and the agent of the
	// SSH host of contract_sshheld_test.go, as untether is.
	if len(os.Args) > 1 && os.Args[1] == "hold" {
		os.Exit(hold.Command(os.Args[2:], os.Stdin, os.Stdout))
	}
	if len(os.Args) > 1 && os.Args[1] == "host-agent" {
		os.Exit(sshhost.AgentMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// heldRig is a rig whose sessions run under a holder (this test binary),
// in a folder of a short name (a socket's path must fit).
func heldRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, nil)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "cx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	r.eng.Base.Hold = &codex.Hold{Placement: hold.Placement{Self: exe, Root: filepath.Join(root, "hold"), Orphan: time.Minute}}
	return r
}

// reattach attaches to the held session of handle from record from, in
// place of a restarted bot.
func (r *rig) reattach(t *testing.T, handle string, from uint64) engine.Conn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c, err := r.eng.Reattach(ctx, engine.Spec{}, handle, from)
	if err != nil {
		cancel()
		t.Fatalf("reattach: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()); cancel() })
	return c
}

// detach leaves the held session running, as a bot that stops does, and
// waits for its Conn to end.
func detach(t *testing.T, c engine.Conn) (handle string, sentAt uint64) {
	t.Helper()
	h, ok := c.(engine.Held)
	if !ok {
		t.Fatal("a session started with Hold is not held")
	}
	handle, sentAt = h.Handle(), h.SentAt()
	h.Detach()
	select {
	case <-c.Done():
	case <-time.After(hang):
		t.Fatal("the detached Conn did not end")
	}
	for ev := range c.Events() {
		if _, ok := ev.(engine.Exited); ok {
			t.Error("a detached Conn said Exited")
		}
	}
	return handle, sentAt
}

// A bot that stops with an approval pending leaves Codex waiting under its
// holder; the bot started after re-attaches, the replay asks the same
// request again (by Codex's own id), and the phone's answer runs the
// command: the turn ends once, with the answer.
func TestHeldApprovalPendingAcrossRestart(t *testing.T) {
	r := heldRig(t)
	c := r.start(t, "")
	thread := c.SessionID()
	send(t, c, "run: echo hi > out.txt")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	handle, sentAt := detach(t, c)
	if sentAt == 0 {
		t.Fatal("SentAt is 0 after a turn/start")
	}

	c2 := r.reattach(t, handle, sentAt)
	if c2.SessionID() != thread {
		t.Errorf("re-attached thread %q, want %q", c2.SessionID(), thread)
	}
	seen = nil
	again := next[engine.ApprovalRequest](t, c2, &seen)
	if again.RequestID != req.RequestID || string(again.Input) != string(req.Input) {
		t.Errorf("replayed request %+v, want %+v", again, req)
	}
	rp := next[engine.Replayed](t, c2, &seen)
	if rp.Prompts != 1 || rp.Truncated {
		t.Errorf("replayed = %+v, want the one prompt", rp)
	}
	if err := c2.Allow(context.Background(), again.RequestID, nil, nil); err != nil {
		t.Fatalf("allow after the restart: %v", err)
	}
	tc := next[engine.TurnCompleted](t, c2, &seen)
	if tc.Outcome != engine.OutcomeDone || !strings.HasPrefix(tc.Result, "done: ") {
		t.Errorf("turn = %+v", tc)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt = %q, %v: the command approved after the restart did not run", b, err)
	}
	// The next turn works on the re-attached Conn (our request ids do not
	// meet the previous bot's responses in the journal).
	send(t, c2, "and now")
	if tc := next[engine.TurnCompleted](t, c2, &seen); tc.Result != "echo: and now" {
		t.Errorf("next turn = %+v", tc)
	}
}

// A turn that ends while no bot listens is replayed once: the request the
// previous bot answered is not asked again, the answer comes with the
// replay, and the prompt is counted (it is not sent again).
func TestHeldTurnEndedWhileDetachedIsReplayedOnce(t *testing.T) {
	r := heldRig(t)
	c := r.start(t, "")
	send(t, c, "run: echo hi > out.txt")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
		t.Fatal(err)
	}
	handle, sentAt := detach(t, c)
	// The command runs and the turn ends meanwhile.
	deadline := time.Now().Add(hang)
	for {
		if b, _ := os.ReadFile(filepath.Join(r.dir, "out.txt")); string(b) == "hi\n" && len(r.api.Requests()) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the approved command did not run while detached")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c2 := r.reattach(t, handle, sentAt)
	seen = nil
	// The turn's end comes in the replay or just after it (Codex may still
	// be writing it): once either way.
	var tc engine.TurnCompleted
	var rp engine.Replayed
	for done, replayed := false, false; !done || !replayed; {
		switch ev := next[engine.Event](t, c2, &seen).(type) {
		case engine.TurnCompleted:
			tc, done = ev, true
		case engine.Replayed:
			rp, replayed = ev, true
		}
	}
	if tc.Outcome != engine.OutcomeDone || !strings.HasPrefix(tc.Result, "done: ") {
		t.Errorf("replayed turn = %+v", tc)
	}
	if rp.Prompts != 1 {
		t.Errorf("replayed = %+v", rp)
	}
	for _, ev := range seen {
		if _, ok := ev.(engine.ApprovalRequest); ok {
			t.Errorf("the request answered before the restart was asked again: %+v", ev)
		}
	}
	completed := 0
	for _, ev := range seen {
		if _, ok := ev.(engine.TurnCompleted); ok {
			completed++
		}
	}
	if completed != 1 {
		t.Errorf("%d turn ends in the replay, want 1", completed)
	}
}
