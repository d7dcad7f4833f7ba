package view

import (
	"errors"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
)

// Every value of the core a chat is told has words of its own: each held
// end but the plain restart says something else than RestartedText, each
// note but billing is said, a failure of the frontend's own keeps its view.
func TestTheCoresValuesHaveWords(t *testing.T) {
	for why := chat.HeldGone; why <= chat.HeldDirRefused; why++ {
		if text := HeldEnd(chat.HeldStop{Why: why, Machine: "box"}); text == "" || text == RestartedText {
			t.Errorf("held end %d reads %q", why, text)
		}
	}
	if HeldEnd(chat.HeldStop{Why: chat.HeldRestarted}) != RestartedText {
		t.Error("a plain restart is not said as one")
	}
	notes := []chat.Note{chat.NoteNotAllowed{}, chat.NoteContinuedElsewhere{}, chat.NoteResumeFailed{},
		chat.NoteUsageWarning{Limit: engine.RateLimited{Status: engine.LimitWarning, Limit: "five_hour"}},
		chat.NoteWorkDirFallback{Stored: "/a", Why: chat.DirGone, Default: "/w"}, chat.NoteSkipped{Age: time.Hour}}
	for _, n := range notes {
		if text, ok := NoteText(n, time.Now()); !ok || text == "" {
			t.Errorf("note %T is not said", n)
		}
	}
	if _, ok := NoteText(chat.NoteBilling{}, time.Now()); ok {
		t.Error("billing is said in words")
	}
	mine := TurnError{What: "mine"}
	own := func(error) (TurnError, bool) { return mine, true }
	if got := Failure(chat.Failure{Kind: chat.FailInput, Err: errors.New("x")}, own); got.What != "mine" {
		t.Errorf("the frontend's own failure became %+v", got)
	}
	if got := Failure(chat.Failure{Kind: chat.FailUnreachable, Machine: "box"}, own); got.What == "" || got.What == "mine" {
		t.Errorf("an unreachable machine reads %+v", got)
	}
}
