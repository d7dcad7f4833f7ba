package runner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/token"
)

// Contract tests of steering (docs/protocol.md "Steer"): a user line
// written while a turn runs, under a uuid of the bot's.

// stagesOf lists the PromptState stages seen for id.
func stagesOf(evs []engine.Event, id string) []engine.PromptStage {
	var out []engine.PromptStage
	for _, ps := range eventsOf[engine.PromptState](evs) {
		if ps.ID == id {
			out = append(out, ps.Stage)
		}
	}
	return out
}

// A line steered while the turn waits on a tool goes into that turn's next
// model request, is reported started before the result, and one result
// answers both: no turn of its own follows.
func TestContractSteerJoinsTheRunningTurn(t *testing.T) {
	const steer = "also mention the weather"
	r := newRig(t, true)
	target := r.path("note.txt")
	r.serve(
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": target, "content": "x\n"})),
		claudetest.Say("written, and it is sunny"),
		claudetest.Say("second"),
	)
	s := r.start()
	id := token.UUID()
	if err := s.Send(ctxFor(t), "Write the note."); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, func(req engine.ApprovalRequest) {
		// The tool waits for this answer: the line is certainly written
		// before the turn's next request.
		if err := s.Steer(ctxFor(t), id, steer); err != nil {
			t.Fatal(err)
		}
		if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if !log.done.OK || log.done.Result != "written, and it is sunny" {
		t.Fatalf("turn = %+v", log.done)
	}
	if st := stagesOf(log.events, id); !slices.Contains(st, engine.PromptStarted) {
		t.Errorf("stages of the steered line before the result = %v, want it started", st)
	}
	reqs := r.api.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !strings.Contains(reqs[1].AllText(), steer) || strings.Contains(reqs[0].AllText(), steer) {
		t.Error("the steered line is not in the turn's next request (and only there)")
	}
	if s.inTurn() {
		t.Error("the session counts a turn after the one result")
	}
	// No turn of its own: the next prompt gets the next answer.
	if again := turn(t, s, "Next.", nil); again.done.Result != "second" {
		t.Errorf("turn after = %+v", again.done)
	}
}

// A line steered while the turn writes its final answer is taken after the
// result, as a turn of its own, without being sent again.
func TestContractSteerAfterTheAnswerRunsNext(t *testing.T) {
	const steer = "and one more thing"
	r := newRig(t, true).serve(
		claudetest.Say("one two three four five six seven eight").Slow(150*time.Millisecond),
		claudetest.Say("the more thing"),
	)
	s := r.start(func(o *Options) { o.IncludePartial = true })
	id := token.UUID()
	if err := s.Send(ctxFor(t), "Talk."); err != nil {
		t.Fatal(err)
	}
	next[engine.Text](t, s)
	if err := s.Steer(ctxFor(t), id, steer); err != nil {
		t.Fatal(err)
	}
	first := runTurn(t, s, nil)
	if slices.Contains(stagesOf(first.events, id), engine.PromptStarted) {
		t.Fatalf("the line joined a turn that made no further request:%s", first)
	}
	second := runTurn(t, s, nil)
	if second.done.Result != "the more thing" || !slices.Contains(stagesOf(second.events, id), engine.PromptStarted) {
		t.Fatalf("the steered line's own turn = %+v, stages %v", second.done, stagesOf(second.events, id))
	}
	if reqs := r.api.Requests(); len(reqs) != 2 || !strings.Contains(reqs[1].UserTexts()[len(reqs[1].UserTexts())-1], steer) {
		t.Errorf("requests = %d, want 2, the second for the steered line", len(reqs))
	}
	if s.inTurn() {
		t.Error("the session counts a turn after both results")
	}
}

// Interrupt drops a line the CLI holds but has not taken (cancel_queued):
// it never runs.
func TestContractInterruptDropsQueuedLines(t *testing.T) {
	const steer = "a line that must not run"
	r := newRig(t, true).serve(
		claudetest.Say("one two three four five six").HangAfter(2),
		claudetest.Say("after"),
	)
	s := r.start(func(o *Options) { o.IncludePartial = true })
	id := token.UUID()
	if err := s.Send(ctxFor(t), "Talk."); err != nil {
		t.Fatal(err)
	}
	next[engine.Text](t, s)
	if err := s.Steer(ctxFor(t), id, steer); err != nil {
		t.Fatal(err)
	}
	if ps := next[engine.PromptState](t, s); ps.ID != id || ps.Stage != engine.PromptQueued {
		t.Fatalf("first state of the line = %+v, want queued", ps)
	}
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, nil)
	if st := stagesOf(log.events, id); !slices.Equal(st, []engine.PromptStage{engine.PromptCancelled}) {
		t.Errorf("stages after the interrupt = %v, want cancelled before the result", st)
	}
	if again := turn(t, s, "Go on.", nil); again.done.Result != "after" {
		t.Errorf("turn after = %+v", again.done)
	}
	for i, req := range r.api.Requests() {
		if strings.Contains(req.AllText(), steer) {
			t.Errorf("request %d carries the dropped line", i)
		}
	}
}
