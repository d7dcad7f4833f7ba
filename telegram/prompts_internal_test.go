package telegram

import (
	"testing"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/telegram/view"
)

type recordedEdit struct {
	ref  promptRef
	text string
	kb   bool
}

func newTestBook() (*promptBook, *[]recordedEdit) {
	var edits []recordedEdit
	pb := &promptBook{edit: func(ref promptRef, text string, kb view.Keyboard) {
		edits = append(edits, recordedEdit{ref, text, kb != nil})
	}}
	return pb, &edits
}

var testKB = view.Keyboard{{{Text: "x", Data: "y"}}}

// A press handled late must not put an older question state on screen.
func TestPromptBookIgnoresOlderStates(t *testing.T) {
	pb, edits := newTestBook()
	k := promptKey{"s", "r"}
	ref := promptRef{ChatID: 1, MessageID: 10}
	if pb.shown(k, ref, "v1") {
		t.Fatal("not resolved yet")
	}
	pb.update(k, 3, "v3", testKB)
	pb.update(k, 2, "v2", testKB) // the concurrent press that lost the race
	if len(*edits) != 1 || (*edits)[0].text != "v3" {
		t.Fatalf("edits = %+v, want only v3", *edits)
	}
	// The outcome is built on the newest text, and nothing follows it.
	if got, ok := pb.resolve(k, view.Outcome{Kind: approvals.OutcomeAnswered}); !ok || got != ref {
		t.Fatalf("resolve = %v %v", got, ok)
	}
	pb.update(k, 4, "v4", testKB) // a press after the end
	last := (*edits)[len(*edits)-1]
	if len(*edits) != 2 || last.kb || last.text != view.OutcomeText("v3", view.Outcome{Kind: approvals.OutcomeAnswered}) {
		t.Fatalf("edits = %+v, want the outcome last, without buttons", *edits)
	}
}

// States and outcomes that come before the message is sent wait for it.
func TestPromptBookBeforeTheMessageExists(t *testing.T) {
	pb, edits := newTestBook()
	k := promptKey{"s", "r"}
	pb.update(k, 2, "v2", testKB)
	pb.update(k, 1, "v1", testKB)
	if len(*edits) != 0 {
		t.Fatalf("edited a message that does not exist yet: %+v", *edits)
	}
	if pb.shown(k, promptRef{ChatID: 1, MessageID: 10}, "sent") {
		t.Fatal("not resolved yet")
	}
	if len(*edits) != 1 || (*edits)[0].text != "v2" || !(*edits)[0].kb {
		t.Fatalf("edits = %+v, want v2 with its buttons", *edits)
	}

	k2 := promptKey{"s", "r2"}
	o := view.Outcome{Kind: approvals.OutcomeDenied}
	if _, ok := pb.resolve(k2, o); ok {
		t.Fatal("resolve of an unsent prompt said edited")
	}
	if !pb.shown(k2, promptRef{ChatID: 1, MessageID: 11}, "prompt") {
		t.Fatal("shown did not report the earlier outcome")
	}
	if last := (*edits)[len(*edits)-1]; last.text != view.OutcomeText("prompt", o) || last.kb {
		t.Fatalf("outcome edit = %+v", last)
	}
	if len(pb.m) != 1 { // k stays until resolved; k2 is gone
		t.Errorf("%d entries left, want 1", len(pb.m))
	}
}
