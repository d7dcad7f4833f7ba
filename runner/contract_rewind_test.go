package runner

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/token"
)

// Contract tests of rewind_files (docs/protocol.md "Undo"): the files
// Claude wrote or edited since a user message come back, files it created
// go, also in a resumed process; Bash changes are not tracked.

func TestContractRewindAfterResume(t *testing.T) {
	r := newRig(t, true)
	edited, created, later := r.path("edited.txt"), r.path("created.txt"), r.path("later.txt")
	if err := os.WriteFile(edited, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.serve(
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": edited, "content": "after\n"})),
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": created, "content": "new\n"})),
		claudetest.Say("written"),
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": later, "content": "later\n"})),
		claudetest.Say("written later"),
	)
	acceptEdits := func(o *Options) { o.PermissionMode = engine.ModeAcceptEdits }
	s1 := r.start(acceptEdits)
	first, second := token.UUID(), token.UUID()
	if err := s1.SendAs(ctxFor(t), first, "Write the files."); err != nil {
		t.Fatal(err)
	}
	runTurn(t, s1, nil)
	dry, err := s1.Rewind(ctxFor(t), first, true)
	if err != nil || !slices.Equal(dry.Files, []string{edited, created}) {
		t.Fatalf("dry run after the turn = %+v, %v; want %s and %s", dry, err, edited, created)
	}
	t.Logf("dry run: %+v", dry)
	if err := s1.SendAs(ctxFor(t), second, "Write another."); err != nil {
		t.Fatal(err)
	}
	runTurn(t, s1, nil)
	// Measured: a dry run of an earlier message lists the later turns'
	// files too (they would go as well).
	if dry, err := s1.Rewind(ctxFor(t), first, true); err != nil || !slices.Contains(dry.Files, later) {
		t.Errorf("dry run of the first turn after a second = %+v, %v; want %s listed", dry, err, later)
	}
	id := s1.SessionID()
	if err := s1.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s1)

	// A resumed process rewinds before any turn of its own.
	s2 := r.start(acceptEdits, func(o *Options) { o.Resume = id })
	if dry, err := s2.Rewind(ctxFor(t), second, true); err != nil || !slices.Equal(dry.Files, []string{later}) {
		t.Errorf("dry run of the second turn after a resume = %+v, %v", dry, err)
	}
	if _, err := s2.Rewind(ctxFor(t), first, false); err != nil {
		t.Fatalf("rewind after a resume: %v", err)
	}
	if b, err := os.ReadFile(edited); err != nil || string(b) != "before\n" {
		t.Errorf("edited file after the rewind = %q, %v; want its old text", b, err)
	}
	for _, f := range []string{created, later} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("created file %s after the rewind: %v, want it removed", f, err)
		}
	}
	if _, err := s2.Rewind(ctxFor(t), token.UUID(), true); !errors.Is(err, engine.ErrNothingToRewind) {
		t.Errorf("rewind of an unknown message = %v, want ErrNothingToRewind", err)
	}
}

func TestContractRewindBashOnly(t *testing.T) {
	r := newRig(t, true)
	made := r.path("bash.txt")
	r.serve(
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "echo hi > " + made})),
		claudetest.Say("done"),
	)
	s := r.start()
	id := token.UUID()
	if err := s.SendAs(ctxFor(t), id, "Run it."); err != nil {
		t.Fatal(err)
	}
	runTurn(t, s, func(a engine.ApprovalRequest) {
		if err := s.Allow(ctxFor(t), a.RequestID, nil, nil); err != nil {
			t.Error(err)
		}
	})
	if _, err := os.Stat(made); err != nil {
		t.Fatalf("bash did not write: %v", err)
	}
	dry, err := s.Rewind(ctxFor(t), id, true)
	t.Logf("dry run of a bash-only turn: %+v, %v", dry, err)
	if err == nil && len(dry.Files) > 0 {
		t.Errorf("a bash-only turn lists %v, want nothing to undo", dry.Files)
	}
}
