package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/runner/claudetest"
)

// Contract tests on an SSH host: the pinned CLI runs as another user,
// reached with the system's ssh through the distribution's sshd on
// 127.0.0.1 (host/ssh/sshtest). The fake API is on this machine's
// loopback, which is that machine's too.

// newSSHRig is a rig whose CLI runs on an SSH host, in a working folder
// and HOME of the host's user.
func newSSHRig(t *testing.T) *rig {
	t.Helper()
	bin := claudetest.Binary(t)
	s := sshtest.Start(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ctl) })
	h, err := sshhost.New(sshhost.Options{Name: "box", Dest: s.Dest, Args: s.Args, ControlDir: ctl, Agent: self})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	r := newRig(t, false)
	r.ssh = h
	r.opts.Host = h
	r.opts.Binary = sshtest.Claude(t, bin)
	r.opts.WorkDir = s.Dir(t, "work")
	home := s.Dir(t, "home")
	r.served = func(r *rig) {
		for i, kv := range r.opts.Env {
			if strings.HasPrefix(kv, "HOME=") {
				r.opts.Env[i] = "HOME=" + home
			}
		}
		r.home = home
	}
	return r
}

func TestContractSSHBashAllowRewritten(t *testing.T) { bashAllowRewritten(t, newSSHRig(t)) }

func TestContractSSHAlwaysAllow(t *testing.T) { alwaysAllow(t, newSSHRig(t)) }

// The CLI there runs as the host's user, and the stall watchdog's meter
// reads its process tree there.
func TestContractSSHRunsAsTheHostUser(t *testing.T) {
	r := newSSHRig(t)
	r.serve(claudetest.Answer(bashUse("id -un > who.txt")), claudetest.Say("noted"))
	s := r.start()
	log := turn(t, s, "Who are you?", func(req engine.ApprovalRequest) {
		if err := s.Allow(ctxFor(t), req.RequestID, req.Input, nil); err != nil {
			t.Fatal(err)
		}
	})
	if !log.done.OK {
		t.Fatalf("turn = %+v", log.done)
	}
	who, err := os.ReadFile(r.path("who.txt"))
	if err != nil || strings.TrimSpace(string(who)) != sshtest.User {
		t.Errorf("who.txt = %q, %v; want %s", who, err, sshtest.User)
	}
	if _, err := r.opts.Host.TreeCPU(context.Background(), s.Pid()); err != nil {
		t.Errorf("TreeCPU of the CLI there: %v", err)
	}
}

// The connection drops mid-turn (a tool runs): the turn ends with Claude
// reported gone, promptly, never a hang; a new process over a new
// connection resumes the session.
func TestContractSSHConnectionDrops(t *testing.T) {
	r := newSSHRig(t)
	r.serve(claudetest.Answer(bashUse("sleep 30")), claudetest.Say("slept"), claudetest.Say("back"))
	s := r.start()
	if err := s.Send(ctxFor(t), "Sleep."); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(contractWait)
	dropped := time.Time{}
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				t.Fatal("events closed without Exited")
			}
			switch e := ev.(type) {
			case engine.ApprovalRequest:
				if err := s.Allow(ctxFor(t), e.RequestID, e.Input, nil); err != nil {
					t.Fatal(err)
				}
			case engine.ActionStarted:
				dropped = time.Now()
				r.ssh.Close() // the connection ends under the running tool
			case engine.Exited:
				if dropped.IsZero() {
					t.Fatalf("Claude exited before the drop: %+v", e)
				}
				if d := time.Since(dropped); d > 20*time.Second {
					t.Errorf("the drop was noticed after %v", d)
				}
				id := s.SessionID()
				s2 := r.start(func(o *Options) { o.Resume = id })
				if again := turn(t, s2, "Are you there?", nil); !again.done.OK {
					t.Errorf("resumed turn after the drop = %+v", again.done)
				}
				return
			case engine.TurnCompleted:
				t.Fatalf("the turn completed despite the drop: %+v", e)
			}
		case <-timeout:
			t.Fatal("no Exited after the connection dropped")
		}
	}
}
