package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of a session's life: queued messages, tools cut short, and
// closing with work in flight.

func TestContractQueuedMessage(t *testing.T) {
	r := newRig(t, true).serve(
		claudetest.Say("the first answer arrives slowly word by word").Slow(100*time.Millisecond),
		claudetest.Say("second answer"),
	)
	s := r.start()
	if err := s.Send(ctxFor(t), "Message one."); err != nil {
		t.Fatal(err)
	}
	if _, err := r.api.WaitRequests(ctxFor(t), 1); err != nil {
		t.Fatal(err)
	}
	// The first answer is still streaming: the CLI queues this one.
	if err := s.Send(ctxFor(t), "Message two."); err != nil {
		t.Fatal(err)
	}
	first := runTurn(t, s, nil)
	second := runTurn(t, s, nil)
	if first.done.Result != "the first answer arrives slowly word by word" || second.done.Result != "second answer" {
		t.Errorf("results %q then %q", first.done.Result, second.done.Result)
	}
	// Each queued message is a turn of its own, with its own init.
	if a, b := eventsOf[engine.SessionStarted](first.events), eventsOf[engine.SessionStarted](second.events); len(a) != 1 || len(b) != 1 {
		t.Errorf("SessionStarted per turn: %d and %d", len(a), len(b))
	}
	if texts := r.lastRequest().UserTexts(); len(texts) == 0 || texts[len(texts)-1] != "Message two." {
		t.Errorf("the second request ends with %q", texts)
	}
}

// proc is a live (non-zombie) process.
type proc struct {
	pid, pgid, sid int
	cmd            string
}

// procsMatching lists live processes whose command line contains needle.
// It scans all of /proc: a tool of the CLI may outlive or leave its parent.
func procsMatching(needle string) []proc {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []proc
	for _, f := range stats {
		dir := filepath.Dir(f)
		cmd, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || !strings.Contains(string(cmd), needle) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// Fields after the parenthesized name: state ppid pgrp session ...
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(fields) < 4 || fields[0] == "Z" {
			continue
		}
		p := proc{cmd: strings.ReplaceAll(string(cmd), "\x00", " ")}
		p.pid, _ = strconv.Atoi(filepath.Base(dir))
		p.pgid, _ = strconv.Atoi(fields[2])
		p.sid, _ = strconv.Atoi(fields[3])
		out = append(out, p)
	}
	return out
}

// poll checks cond every 20 ms until it holds or d has passed.
func poll(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// startLongTool starts a turn whose Bash command runs until it is stopped
// (timeout ends it in any case) and returns once the command is running.
// The command names a file in this test's working dir, so its process can
// be told apart from other tests'. Reading a file in the working dir is
// not asked about; an approval, should one come, is allowed.
func startLongTool(t *testing.T, r *rig, s *Session) (marker string, tool proc) {
	t.Helper()
	marker = r.path("marker.log")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(ctxFor(t), "Follow the log."); err != nil {
		t.Fatal(err)
	}
	next[engine.ActionStarted](t, s)
	ok := pollAllowing(t, s, func() bool {
		for _, p := range procsMatching(marker) {
			if strings.HasPrefix(p.cmd, "tail ") {
				tool = p
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatal("the tool's command never started")
	}
	return marker, tool
}

// pollAllowing polls cond for up to hangBound, reading the session's
// events meanwhile and allowing any approval request among them.
func pollAllowing(t *testing.T, s *Session, cond func() bool) bool {
	t.Helper()
	return poll(hangBound, func() bool {
		select {
		case ev := <-s.Events():
			if req, isReq := ev.(engine.ApprovalRequest); isReq {
				if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
					t.Fatal(err)
				}
			}
		default:
		}
		return cond()
	})
}

func longToolScript(r *rig) *rig {
	return r.serve(claudetest.Answer(bashUse("timeout 60 tail -f "+r.path("marker.log"))), claudetest.Say("still here"))
}

func TestContractInterruptRunningTool(t *testing.T) {
	r := longToolScript(newRig(t, true))
	s := r.start()
	marker, tool := startLongTool(t, r, s)
	// Measured: Bash commands run in a session of their own, outside the
	// CLI's process group, so signalling that group cannot reach them.
	t.Logf("tool %+v; claude pid/pgid %d", tool, s.Pid())
	if tool.pgid == s.Pid() || tool.sid == s.Pid() {
		t.Errorf("the tool runs in claude's process group or session: %+v", tool)
	}
	began := time.Now()
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, nil)
	t.Logf("interrupt of a running tool to result: %v", time.Since(began))
	if tc := log.done; tc.OK || !saidReason(tc, "aborted_tools") || tc.ErrorText != "interrupted" {
		t.Errorf("interrupted turn = %+v", tc)
	}
	if done := eventsOf[engine.ActionCompleted](log.events); len(done) != 1 || done[0].OK {
		t.Errorf("the interrupted tool completed as %+v, want one failed result", done)
	}
	// The CLI kills the running command itself.
	if !poll(hangBound, func() bool { return len(procsMatching(marker)) == 0 }) {
		t.Errorf("the interrupted command still runs: %+v", procsMatching(marker))
	}
	if again := turn(t, s, "Are you there?", nil); !again.done.OK || again.done.Result != "still here" {
		t.Errorf("turn after the interrupt = %+v", again.done)
	}
}

func TestContractCloseDuringRunningTool(t *testing.T) {
	r := longToolScript(newRig(t, true))
	// SIGTERM only after a hang's time (it was 500 ms, which a loaded
	// machine's CLI could miss): an exit without a signal is the one the
	// interrupt and stdin's end brought. A long TermGrace shows what the
	// CLI does with SIGTERM on its own.
	s := r.start(func(o *Options) { o.CloseGrace = hangBound; o.TermGrace = 10 * time.Second })
	marker, _ := startLongTool(t, r, s)
	began := time.Now()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	took := time.Since(began)
	ex := waitExit(t, s)
	t.Logf("Close during a running tool: %v (SIGTERM after %v), exit %+v", took, s.opts.CloseGrace, ex)
	// Measured: stdin EOF alone does not end the CLI while a tool runs (only
	// SIGTERM did, exit status 143). Close interrupts the turn first, so the
	// CLI kills the tool, ends the turn aborted and exits 1 at EOF.
	if ex.ExitCode != 1 || ex.Signal != "" || ex.MidTurn {
		t.Errorf("exit = %+v, want status 1 after the interrupted turn", ex)
	}
	if n := len(procsMatching(marker)); n != 0 {
		t.Errorf("%d processes of the tool outlived the CLI: %+v", n, procsMatching(marker))
	}
}

func TestContractCloseWithPendingApproval(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("carried on"))
	s := r.start()
	if err := s.Send(ctxFor(t), "Create a.txt."); err != nil {
		t.Fatal(err)
	}
	req := next[engine.ApprovalRequest](t, s)
	began := time.Now()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close with a pending approval took %v", time.Since(began))
	var rest []engine.Event
	for ev := range s.Events() {
		rest = append(rest, ev)
	}
	t.Logf("after Close:%s", turnLog{events: rest})
	// Measured: EOF alone would fail the pending request as a denial and
	// the CLI would call the model once more. Close interrupts a running
	// turn first, so the request is withdrawn, the turn ends aborted and no
	// further model call is made.
	if c := eventsOf[engine.ApprovalCancelled](rest); len(c) != 1 || c[0].RequestID != req.RequestID {
		t.Errorf("want the pending request withdrawn, got %+v", c)
	}
	done := eventsOf[engine.ActionCompleted](rest)
	if len(done) != 1 || done[0].OK {
		t.Errorf("the pending tool completed as %+v, want a failure", done)
	}
	if tc := eventsOf[engine.TurnCompleted](rest); len(tc) != 1 || tc[0].OK || !saidReason(tc[0], "aborted_tools") {
		t.Errorf("turn after Close = %+v", tc)
	}
	if n := len(r.api.Requests()); n != 1 {
		t.Errorf("%d API requests, want 1 (no model call after the close)", n)
	}
	// The last result was an error, so the CLI exits 1 at EOF.
	if ex := eventsOf[engine.Exited](rest); len(ex) != 1 || ex[0].ExitCode != 1 || ex[0].MidTurn {
		t.Errorf("exit = %+v", ex)
	}
	if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("answer after close: %v, want engine.ErrClosed", err)
	}
	if exists(r.path("a.txt")) {
		t.Error("the unanswered command ran")
	}
}
