package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of held sessions (held.go, package hold) with the real
// CLI: the bot detaches mid-turn, as it does when it stops, and a new
// Session attaches to the same process and finishes the turn.

// held makes the rig's sessions durable, held by this test binary.
func (r *rig) held() *rig {
	r.t.Helper()
	r.opts.Hold = testHold(r.t)
	return r
}

// startHeld starts a held session whose holder and CLI end with the test,
// passed or failed: nothing of it may outlive the test.
func (r *rig) startHeld(mut ...func(*Options)) *Session {
	r.t.Helper()
	s := r.start(mut...)
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil {
		r.t.Fatalf("not held: %v", err)
	}
	r.t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	return s
}

// detach drops s as a stopping bot does and checks it ends without Exited.
func detach(t *testing.T, s *Session) (handle string, from uint64) {
	t.Helper()
	handle, from = s.HoldHandle(), s.SentAt()
	s.Detach()
	timeout := time.After(contractWait)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				return handle, from
			}
			if ex, isExit := ev.(engine.Exited); isExit {
				t.Fatalf("a detached session reported an exit: %+v", ex)
			}
		case <-timeout:
			t.Fatal("events of a detached session did not close")
		}
	}
}

func (r *rig) reattach(handle string, from uint64) *Session {
	r.t.Helper()
	s, err := Reattach(ctxFor(r.t), r.opts, handle, from)
	if err != nil {
		r.t.Fatalf("reattach: %v", err)
	}
	r.cleanup(s)
	return s
}

func holderDirs(t *testing.T, r *rig) []string {
	t.Helper()
	ents, _ := os.ReadDir(r.opts.Hold.Root)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestContractHeldAnswerSurvivesDetach(t *testing.T) {
	const answer = "one two three four five six seven eight nine ten"
	r := newRig(t, true).held().serve(claudetest.Say(answer).Slow(40*time.Millisecond), claudetest.Say("second"))
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	if err := s.Send(ctxFor(t), "Count to ten."); err != nil {
		t.Fatal(err)
	}
	if p := next[engine.Text](t, s); !p.Partial {
		t.Fatalf("want a partial text first, got %+v", p)
	}
	pid := s.Pid()
	handle, from := detach(t, s) // mid-answer
	if from == 0 {
		t.Fatal("SentAt is 0 after a prompt")
	}

	s2 := r.reattach(handle, from)
	if s2.Pid() != pid {
		t.Errorf("re-attached to pid %d, the CLI was %d", s2.Pid(), pid)
	}
	log := runTurn(t, s2, nil)
	if r := eventsOf[engine.Replayed](log.events); len(r) != 1 || r[0].Prompts != 1 {
		t.Errorf("want one Replayed marker, with the prompt:%s", log)
	}
	if !log.done.OK || log.done.Result != answer {
		t.Errorf("turn after the re-attach = %+v", log.done)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1 (the prompt went once)", n)
	}
	// The session goes on as if nothing happened.
	if again := turn(t, s2, "Again.", nil); again.done.Result != "second" {
		t.Errorf("next turn = %+v", again.done)
	}
	if err := s2.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	holderFilesGone(t, r)
}

// holderFilesGone waits until the holders' folders are removed: the
// session was closed, and its holder exits once Claude has.
func holderFilesGone(t *testing.T, r *rig) {
	t.Helper()
	deadline := time.Now().Add(contractWait)
	for len(holderDirs(t, r)) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if d := holderDirs(t, r); len(d) > 0 {
		t.Errorf("the holder's files outlived the session: %v", d)
	}
}

func TestContractHeldApprovalSurvivesDetach(t *testing.T) {
	r := newRig(t, true).held().serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("made it"))
	s := r.startHeld()
	if err := s.Send(ctxFor(t), "Create a.txt."); err != nil {
		t.Fatal(err)
	}
	req := next[engine.ApprovalRequest](t, s)
	handle, from := detach(t, s)

	s2 := r.reattach(handle, from)
	asked := 0
	log := runTurn(t, s2, func(again engine.ApprovalRequest) {
		asked++
		if again.RequestID != req.RequestID {
			t.Errorf("replayed request %s, want %s", again.RequestID, req.RequestID)
		}
		if err := s2.Allow(ctxFor(t), again.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if asked != 1 || !log.done.OK || log.done.Result != "made it" || !exists(r.path("a.txt")) {
		t.Fatalf("asked %d times, turn %+v, a.txt made %v:%s", asked, log.done, exists(r.path("a.txt")), log)
	}

	// Detached again after the answer: the request is not asked a third
	// time, and the finished turn replays to its result alone.
	handle, _ = detach(t, s2)
	s3 := r.reattach(handle, from)
	log = runTurn(t, s3, func(e engine.ApprovalRequest) { t.Errorf("an answered request was asked again: %+v", e) })
	if log.done.Result != "made it" || len(r.api.Requests()) != 2 {
		t.Errorf("replayed turn %+v after %d requests", log.done, len(r.api.Requests()))
	}
}

func TestContractHeldHolderGone(t *testing.T) {
	r := newRig(t, true).held().serve(claudetest.Say("hi there").Slow(8 * time.Second))
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	if err := s.Send(ctxFor(t), "Hello."); err != nil {
		t.Fatal(err)
	}
	next[engine.Text](t, s)
	handle := s.HoldHandle()
	var h hold.Handle
	if err := json.Unmarshal([]byte(handle), &h); err != nil || h.Holder == 0 {
		t.Fatalf("handle %s: %v", handle, err)
	}
	// The holder dies (an OOM kill): the CLI loses its stdin and ends, and
	// the turn ends with an error, as a crash of the CLI does.
	if err := syscall.Kill(h.Holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ex := next[engine.Exited](t, s)
	if ex.Err == nil || !ex.MidTurn {
		t.Errorf("exit after the holder died = %+v", ex)
	}
	_, err := Reattach(ctxFor(t), r.opts, handle, s.SentAt())
	if !errors.Is(err, engine.ErrGone) {
		t.Fatalf("reattach to a gone holder: %v", err)
	}
	if d := holderDirs(t, r); len(d) > 0 {
		t.Errorf("the files of a dead holder stay: %v", d)
	}
	waitDead(t, h.Pid)
}

// waitDead waits for a process to be gone.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(contractWait)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("process %d still runs", pid)
}

// The bot stops after it recorded the turn and before its prompt reached
// the holder: the replay from the record after the last one read has no
// prompt, which the bot then sends (once).
func TestContractHeldPromptNotYetSent(t *testing.T) {
	r := newRig(t, true).held().serve(claudetest.Say("only once"))
	s := r.startHeld()
	from := s.Seen() + 1
	handle, _ := detach(t, s)
	s2 := r.reattach(handle, from)
	if rep := next[engine.Replayed](t, s2); rep.Prompts != 0 {
		t.Fatalf("replay of a prompt never sent: %+v", rep)
	}
	if log := turn(t, s2, "Now.", nil); log.done.Result != "only once" {
		t.Errorf("turn = %+v", log.done)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
