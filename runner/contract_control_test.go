package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of host-initiated control requests (interrupt,
// set_permission_mode) and the warm-turn benchmark.

func TestContractInterruptMidStream(t *testing.T) {
	const scripted = "one two three four five six"
	r := newRig(t, true).serve(
		// Two text deltas, then the stream hangs: only an interrupt ends the turn.
		claudetest.Say(scripted).HangAfter(2),
		claudetest.Say("after the interrupt"),
	)
	s := r.start(func(o *Options) { o.IncludePartial = true })
	if err := s.Send(ctxFor(t), "Talk a lot."); err != nil {
		t.Fatal(err)
	}
	if p := next[engine.Text](t, s); !p.Partial || p.Text == "" {
		t.Fatalf("want a partial text first, got %+v", p)
	}
	began := time.Now()
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, nil)
	t.Logf("interrupt to result: %v", time.Since(began))
	tc := log.done
	if tc.OK || tc.Outcome != engine.OutcomeCancelled || tc.Reason != "error_during_execution/aborted_streaming" || tc.ErrorText != "interrupted" {
		t.Errorf("interrupted turn = %+v", tc)
	}
	// Measured: the CLI commits what streamed so far as an assistant line,
	// so a non-partial Text with the cut-off text may close the turn.
	for _, txt := range eventsOf[engine.Text](log.events) {
		if !txt.Partial {
			t.Logf("full text of the interrupted stream: %q", txt.Text)
			if txt.Text == "" || !strings.HasPrefix(scripted, txt.Text) {
				t.Errorf("text of an interrupted stream = %q, want a prefix of %q", txt.Text, scripted)
			}
		}
	}
	pid := s.Pid()
	again := turn(t, s, "Go on.", nil)
	if !again.done.OK || again.done.Result != "after the interrupt" || s.Pid() != pid {
		t.Errorf("turn after the interrupt = %+v", again.done)
	}
	// The partial answer stays in the conversation.
	if n := r.lastRequest().AssistantTurns(); n != 1 {
		t.Errorf("request after the interrupt carries %d assistant messages, want 1", n)
	}
}

func TestContractInterruptIdle(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("fine"))
	s := r.start()
	// Between turns there is nothing to stop; the CLI still answers.
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Errorf("interrupt while idle: %v", err)
	}
	if log := turn(t, s, "Hi.", nil); !log.done.OK {
		t.Errorf("turn after an idle interrupt = %+v", log.done)
	}
}

func TestContractSetPermissionMode(t *testing.T) {
	r := newRig(t, true)
	target := r.path("auto.txt")
	r.serve(claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": target, "content": "auto\n"})),
		claudetest.Say("written"))
	s := r.start()
	// Before the first turn: the CLI already reads control requests.
	if err := s.SetPermissionMode(ctxFor(t), "acceptEdits"); err != nil {
		t.Fatal(err)
	}
	if ch := next[engine.PermissionModeChanged](t, s); ch.Mode != "acceptEdits" {
		t.Errorf("mode change = %+v", ch)
	}
	log := turn(t, s, "Write auto.txt.", nil) // nil: being asked fails the test
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].PermissionMode != "acceptEdits" {
		t.Errorf("SessionStarted = %+v, want mode acceptEdits", st)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "auto\n" {
		t.Errorf("auto.txt = %q, %v", got, err)
	}
	// The CLI's error names the valid modes, not the rejected one.
	err := s.SetPermissionMode(ctxFor(t), "yolo")
	if err == nil || !strings.Contains(err.Error(), "must be one of") {
		t.Errorf("invalid mode: err = %v, want the CLI's refusal", err)
	}
	// The refusal leaves the session working.
	if err := s.SetPermissionMode(ctxFor(t), "plan"); err != nil {
		t.Fatal(err)
	}
	if ch := next[engine.PermissionModeChanged](t, s); ch.Mode != "plan" {
		t.Errorf("mode change = %+v", ch)
	}
}

// BenchmarkContractWarmTurn compares the wait for a reply on a live process
// with closing the process after every message and resuming it with
// --resume. warm_ms/resume_ms: Send (resume: Start) to the first event;
// *_turn_ms: to the result.
func BenchmarkContractWarmTurn(b *testing.B) {
	r := newRig(b, false).serve() // every request gets claudetest.DefaultReply
	warm := r.start()
	runTurnOrFail(b, warm, "warm up")

	// The resumed conversation is a different session: two processes must
	// never write the same session file.
	cold := r.start()
	runTurnOrFail(b, cold, "warm up")
	coldID := cold.SessionID()
	if err := cold.Close(context.Background()); err != nil {
		b.Fatal(err)
	}

	var warmFirst, warmTurn, resumeFirst, resumeTurn time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		if err := warm.Send(context.Background(), "next"); err != nil {
			b.Fatal(err)
		}
		first := firstEvent(b, warm)
		warmFirst += first.Sub(began)
		runTurn(b, warm, nil)
		warmTurn += time.Since(began)

		began = time.Now()
		s := r.start(func(o *Options) { o.Resume = coldID })
		if err := s.Send(context.Background(), "next"); err != nil {
			b.Fatal(err)
		}
		first = firstEvent(b, s)
		resumeFirst += first.Sub(began)
		runTurn(b, s, nil)
		resumeTurn += time.Since(began)
		b.StopTimer()
		if err := s.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	b.ReportMetric(ms(warmFirst), "warm_ms")
	b.ReportMetric(ms(resumeFirst), "resume_ms")
	b.ReportMetric(ms(warmTurn), "warm_turn_ms")
	b.ReportMetric(ms(resumeTurn), "resume_turn_ms")
	b.ReportMetric(float64(resumeTurn)/float64(warmTurn), "resume/warm")
}

func runTurnOrFail(tb testing.TB, s *Session, prompt string) {
	tb.Helper()
	if log := turn(tb, s, prompt, nil); !log.done.OK {
		tb.Fatalf("turn = %+v", log.done)
	}
}

// recvEvent returns the next event and when it arrived.
func recvEvent(tb testing.TB, s *Session) (engine.Event, time.Time) {
	tb.Helper()
	select {
	case ev, ok := <-s.Events():
		if !ok {
			tb.Fatal("events closed")
		}
		return ev, time.Now()
	case <-time.After(contractWait):
		tb.Fatal("no event")
	}
	return nil, time.Time{}
}

// firstEvent waits for the first event of a turn, which must not be its
// result (runTurn reads the rest).
func firstEvent(tb testing.TB, s *Session) time.Time {
	tb.Helper()
	ev, at := recvEvent(tb, s)
	if _, ok := ev.(engine.TurnCompleted); ok {
		tb.Fatal("the first event of a turn was its result")
	}
	return at
}

// With partial messages the CLI forwards a tool call's input as the model
// writes it (content_block_start, input_json_delta pieces, content_block_stop)
// before the assistant line with the whole call: a command shows while it is
// written.
func TestContractPartialToolInput(t *testing.T) {
	const cmd = "echo streamed-command-42 && ls"
	r := newRig(t, true).serve(
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": cmd, "description": "Echo and list"})),
		claudetest.Say("done"),
	)
	s := r.start(func(o *Options) { o.IncludePartial = true })
	log := turn(t, s, "Run it.", func(req engine.ApprovalRequest) {
		if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	var partial []string
	whole := false
	for _, a := range eventsOf[engine.ActionStarted](log.events) {
		switch {
		case a.Partial && !whole:
			if !strings.HasPrefix(cmd, a.Title) {
				t.Errorf("partial title %q is not the start of the command", a.Title)
			}
			partial = append(partial, a.Title)
		case a.Partial:
			t.Errorf("a partial title %q after the whole call", a.Title)
		default:
			whole = a.Title == cmd
		}
	}
	t.Logf("partial titles before the whole call: %q", partial)
	if len(partial) == 0 || !whole {
		t.Errorf("partial titles %q, whole call seen %v:%s", partial, whole, log)
	}
}
