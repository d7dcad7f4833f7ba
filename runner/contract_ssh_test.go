package runner

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/runner/claudetest"
)

// Contract tests on an SSH host: the pinned CLI runs as another user,
// reached with the system's ssh through the distribution's sshd on
// 127.0.0.1 (host/ssh/sshtest). The fake API is on this machine's
// loopback, which is that machine's too.

// newSSHRig is a rig whose CLI runs on an SSH host, in a working folder
// and HOME of the host's user.
func newSSHRig(t testing.TB) *rig {
	t.Helper()
	bin := claudetest.Binary(t)
	s := sshtest.Start(t)
	h := s.Connect(t)
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

// benchStep answers a prompt "bash" with a Bash call, the call's result
// with "done", anything else with "hello": a script for any number of
// turns and sessions.
var benchStep = claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
	last := req.Messages[len(req.Messages)-1]
	for _, b := range last.Content {
		if b.Type == "tool_result" {
			return claudetest.Say("done")
		}
	}
	if texts := req.UserTexts(); len(texts) > 0 && strings.Contains(texts[len(texts)-1], "bash") {
		return claudetest.Answer(bashUse("touch bench.txt"))
	}
	return claudetest.Say("hello")
})

// BenchmarkContractSSHvsLocal measures the hop to an SSH host (loopback
// sshd, the pinned CLI as another user) against this machine, per
// operation, in ms: new_first_text (a new session over a warm
// connection: Start to its first text), first_text (a live session: Send
// to the first text), press_final (Allow to the turn's result); ssh-held
// is ssh with the sessions held there (through a bridge, docs/durability.md).
func BenchmarkContractSSHvsLocal(b *testing.B) {
	for _, c := range []struct {
		name string
		rig  func(testing.TB) *rig
	}{{"local", func(tb testing.TB) *rig { return newRig(tb, false) }}, {"ssh", newSSHRig},
		{"ssh-held", func(tb testing.TB) *rig { return newSSHRig(tb).heldOnHost() }}} {
		b.Run(c.name, func(b *testing.B) {
			steps := make([]claudetest.Step, 200)
			for i := range steps {
				steps[i] = benchStep
			}
			r := c.rig(b).serve(steps...)
			r.opts.IncludePartial = true
			warm := r.start()
			runTurnOrFail(b, warm, "warm up") // the connection and the agent are up
			var newFirst, first, press time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				began := time.Now()
				s := r.start()
				if err := s.Send(context.Background(), "hi"); err != nil {
					b.Fatal(err)
				}
				newFirst += untilText(b, s).Sub(began)
				runTurn(b, s, nil)
				b.StopTimer()
				_ = s.Close(context.Background())
				b.StartTimer()

				began = time.Now()
				if err := warm.Send(context.Background(), "hi again"); err != nil {
					b.Fatal(err)
				}
				first += untilText(b, warm).Sub(began)
				runTurn(b, warm, nil)

				var allowed time.Time
				log := turn(b, warm, "bash please", func(req engine.ApprovalRequest) {
					allowed = time.Now()
					if err := warm.Allow(context.Background(), req.RequestID, req.Input, nil); err != nil {
						b.Fatal(err)
					}
				})
				if allowed.IsZero() || !log.done.OK {
					b.Fatalf("the bash turn: %+v", log.done)
				}
				press += time.Since(allowed)
			}
			n := float64(b.N)
			b.ReportMetric(float64(newFirst.Milliseconds())/n, "new_first_text_ms")
			b.ReportMetric(float64(first.Milliseconds())/n, "first_text_ms")
			b.ReportMetric(float64(press.Milliseconds())/n, "press_final_ms")
		})
	}
}

// untilText waits for the turn's first text and says when it came.
func untilText(tb testing.TB, s *Session) time.Time {
	tb.Helper()
	for {
		ev, at := recvEvent(tb, s)
		switch e := ev.(type) {
		case engine.Text:
			return at
		case engine.TurnCompleted:
			tb.Fatalf("the turn ended without text: %+v", e)
		}
	}
}

// BenchmarkContractSSHTwentySessions runs 20 live sessions at once, ten on
// each of two SSH hosts (two sshd servers, two connections), two turns
// each, and reports the answers lost (the goal: 0) and the slowest turn.
func BenchmarkContractSSHTwentySessions(b *testing.B) {
	rigs := []*rig{newSSHRig(b), newSSHRig(b)}
	for _, r := range rigs {
		steps := make([]claudetest.Step, 50)
		for i := range steps {
			steps[i] = benchStep
		}
		r.serve(steps...)
	}
	for i := 0; i < b.N; i++ {
		var mu sync.Mutex
		lost, slowest := 0, time.Duration(0)
		var wg sync.WaitGroup
		for n := 0; n < 20; n++ {
			r := rigs[n%2]
			wg.Go(func() {
				s, err := Start(context.Background(), r.opts)
				if err != nil {
					mu.Lock()
					lost += 2
					mu.Unlock()
					return
				}
				defer func() {
					_ = s.Close(context.Background())
					for range s.Events() {
					}
				}()
				for _, prompt := range []string{"hi", "hi again"} {
					began := time.Now()
					ok := s.Send(context.Background(), prompt) == nil && turnOK(s)
					mu.Lock()
					if !ok {
						lost++
					}
					slowest = max(slowest, time.Since(began))
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(lost), "lost_answers")
		b.ReportMetric(float64(slowest.Milliseconds()), "slowest_turn_ms")
		if lost > 0 {
			b.Errorf("%d of 40 answers lost", lost)
		}
	}
}

// turnOK reads a turn to its result, within contractWait.
func turnOK(s *Session) bool {
	timeout := time.After(contractWait)
	for {
		select {
		case ev, ok := <-s.Events():
			if !ok {
				return false
			}
			if e, ok := ev.(engine.TurnCompleted); ok {
				return e.OK && e.Result == "hello"
			}
		case <-timeout:
			return false
		}
	}
}
