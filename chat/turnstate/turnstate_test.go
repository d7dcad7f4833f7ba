package turnstate

import (
	"testing"
	"time"

	"github.com/untether/untether/engine"
)

// A turn's events fold into its state without a bot: actions in order
// (a subagent's left out, a partial command completed in place), the last
// complete text, the text being written, and the notes.
func TestApplyFoldsATurn(t *testing.T) {
	s := New()
	if s.Phase != PhaseStarting {
		t.Fatalf("phase %q", s.Phase)
	}
	steps := []struct {
		ev      engine.Event
		changed bool
	}{
		{engine.SessionStarted{SessionID: "s1"}, true},
		{engine.ActionStarted{ToolUseID: "a", Tool: "Bash", Kind: "command", Title: "ls"}, true},
		{engine.ActionStarted{ToolUseID: "a", Tool: "Bash", Kind: "command", Title: "ls -la"}, true},
		{engine.ActionStarted{ToolUseID: "sub", ParentToolUseID: "task", Title: "inner"}, false},
		{engine.ActionCompleted{ToolUseID: "sub", OK: true}, false},
		{engine.ActionStarted{ToolUseID: "b", Kind: "edit", Title: "main.go"}, true},
		{engine.ActionCompleted{ToolUseID: "a", OK: true, Detail: "3 files"}, true},
		{engine.Text{Text: "Hel", Partial: true}, false},
		{engine.Text{Text: "inner words", ParentToolUseID: "task"}, false},
		{engine.Text{Text: "Hello."}, true},
		{engine.APIRetry{Attempt: 1, MaxRetries: 10, HTTPStatus: 529, Delay: time.Second}, true},
		{engine.Compacting{}, true},
		{engine.Compacted{Trigger: "auto", PreTokens: 100, PostTokens: 10}, true},
		{engine.RateLimited{Status: engine.LimitReached, Limit: "five_hour"}, true},
	}
	for i, st := range steps {
		if got := s.Apply(st.ev); got != st.changed {
			t.Errorf("step %d (%T): changed = %v, want %v", i, st.ev, got, st.changed)
		}
	}
	if len(s.Actions) != 2 || s.Actions[0].Title != "ls -la" || s.Actions[0].State != Done || s.Actions[0].Detail != "3 files" ||
		s.Actions[1].State != Running {
		t.Errorf("actions = %+v", s.Actions)
	}
	if r := s.Running(); r == nil || r.ID != "b" {
		t.Errorf("running = %+v, want b", r)
	}
	if !s.SawInit || s.LastText != "Hello." || s.Limit == nil || s.Compaction == nil || !s.Compaction.Auto || s.Compaction.Pre != 100 {
		t.Errorf("state = %+v", s)
	}
	// The retry went through when other news came; an allowed limit clears.
	if s.Retry != nil {
		t.Errorf("retry %+v kept after later news", s.Retry)
	}
	if !s.Apply(engine.RateLimited{Status: engine.LimitAllowed}) || s.Limit != nil {
		t.Error("an allowed status clears the limit")
	}
	if s.Apply(engine.RateLimited{Status: engine.LimitReached, UsingOverage: true}); s.Limit != nil {
		t.Error("a rejection paid from overage does not stop the turn")
	}
}

// The text being written builds up block by block: after a complete block
// the next delta starts a new one.
func TestAppendStream(t *testing.T) {
	s := New()
	s.AppendStream("Hel")
	if got := s.AppendStream("lo"); got != "Hello" {
		t.Fatalf("stream %q", got)
	}
	s.Apply(engine.Text{Text: "Hello"})
	if got := s.AppendStream("Next"); got != "Next" {
		t.Fatalf("after a complete block: %q, want a new one", got)
	}
	s.Apply(engine.APIRetry{Attempt: 1})
	if !s.Apply(engine.Text{Text: "x", Partial: true}) || s.Retry != nil {
		t.Error("news after a retry clears it, and that is a change")
	}
}
