package runner

import (
	"slices"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/token"
)

// Contract tests of steering a held session across a re-attach: the
// journal's replay must tell a steered line from a prompt.

// A line steered into the running turn, then a detach and a re-attach
// mid-turn: the replay counts one prompt (the turn's), the turn ends with
// its one result and no turn is left counted, and a later re-attach would
// still replay from the prompt.
func TestContractHeldSteerJoinedIsNoPrompt(t *testing.T) {
	const steer = "also mention the weather"
	r := newRig(t, true).held()
	target := r.path("note.txt")
	r.serve(
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": target, "content": "x\n"})),
		claudetest.Say("written, and it is sunny"),
		claudetest.Say("second"),
	)
	s := r.startHeld()
	id := token.UUID()
	if err := s.Send(ctxFor(t), "Write the note."); err != nil {
		t.Fatal(err)
	}
	next[engine.ApprovalRequest](t, s)
	if err := s.Steer(ctxFor(t), id, steer); err != nil {
		t.Fatal(err)
	}
	handle, from := detach(t, s)

	s2 := r.reattach(handle, from)
	log := runTurn(t, s2, func(req engine.ApprovalRequest) {
		if err := s2.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if !log.done.OK || log.done.Result != "written, and it is sunny" {
		t.Fatalf("turn after the re-attach = %+v", log.done)
	}
	if rp := eventsOf[engine.Replayed](log.events); len(rp) != 1 || rp[0].Prompts != 1 {
		t.Errorf("replayed = %+v, want one marker with one prompt", rp)
	}
	if st := stagesOf(log.events, id); !slices.Contains(st, engine.PromptStarted) {
		t.Errorf("stages of the steered line = %v, want it started", st)
	}
	if got := s2.SentAt(); got != from {
		t.Errorf("SentAt after the replay = %d, want the prompt's record %d", got, from)
	}
	if s2.inTurn() {
		t.Error("the session counts a turn after the one result")
	}
	if again := turn(t, s2, "Next.", nil); again.done.Result != "second" {
		t.Errorf("turn after = %+v", again.done)
	}
}

// A line steered while the answer is written runs as a turn of its own
// after the result; a re-attach after that result replays from the record
// after it (SentAt moved there): that turn's result only, counted as a turn.
func TestContractHeldSteerRunsNextReplaysItsTurn(t *testing.T) {
	const steer = "and one more thing"
	r := newRig(t, true).held().serve(
		claudetest.Say("one two three four five six seven eight").Slow(150*time.Millisecond),
		claudetest.Say("the more thing").Slow(150*time.Millisecond),
	)
	s := r.startHeld(func(o *Options) { o.IncludePartial = true })
	id := token.UUID()
	if err := s.Send(ctxFor(t), "Talk."); err != nil {
		t.Fatal(err)
	}
	promptAt := s.SentAt()
	next[engine.Text](t, s)
	if err := s.Steer(ctxFor(t), id, steer); err != nil {
		t.Fatal(err)
	}
	first := runTurn(t, s, nil)
	if first.done.Result != "one two three four five six seven eight" {
		t.Fatalf("first turn = %+v", first.done)
	}
	next[engine.Text](t, s) // the steered line's turn answers
	handle, from := detach(t, s)
	if from <= promptAt {
		t.Fatalf("SentAt = %d after the result, want past the first turn (%d)", from, promptAt)
	}
	s2 := r.reattach(handle, from)
	log := runTurn(t, s2, nil)
	if log.done.Result != "the more thing" {
		t.Fatalf("turn after the re-attach = %+v", log.done)
	}
	if s2.inTurn() {
		t.Error("the session counts a turn after the steered line's result")
	}
	if n := len(r.api.Requests()); n != 2 {
		t.Errorf("the model got %d requests, want 2", n)
	}
}
