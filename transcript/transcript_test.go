package transcript_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/transcript"
)

const secret = "sk-transcript-secret-0123456789"

func open(t *testing.T) *prefs.Store {
	t.Helper()
	s, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The recorder folds a conversation's events into turns: prompt, answer,
// tools, cost, outcome; a refused and a cancelled turn are recorded as
// such, and every text is redacted in the state file itself.
func TestRecorderWritesEachTurn(t *testing.T) {
	store := open(t)
	l := transcript.New(store, redact.New(secret))
	r := l.Record(nil)
	ev := func(e chat.Event) { e.Key = "7"; r.Observe(e) }
	ev(chat.Event{Kind: chat.EvTurnStarted, Asked: "deploy with " + secret, Turn: &chat.TurnSnapshot{}})
	ev(chat.Event{Kind: chat.EvProgress}) // not needed: skipped
	ev(chat.Event{Kind: chat.EvAnswer, Final: &chat.Final{Outcome: chat.OutcomeDone, Result: "done, key " + secret,
		Cost: 0.25, InTokens: 1200, OutTokens: 80, Overrun: chat.OverTurnCap}})
	ev(chat.Event{Kind: chat.EvTurnEnded, Turn: &chat.TurnSnapshot{Actions: []turnstate.Action{
		{Kind: "command", Title: "make deploy", State: turnstate.Done},
		{Kind: "file_change", Title: "main.go", State: turnstate.Failed}}}})
	ev(chat.Event{Kind: chat.EvTurnStarted, Asked: "again"})
	ev(chat.Event{Kind: chat.EvFailed, Failure: &chat.Failure{Kind: chat.FailDailyBudget}})
	ev(chat.Event{Kind: chat.EvTurnEnded})
	ev(chat.Event{Kind: chat.EvTurnStarted, Asked: "stop"})
	ev(chat.Event{Kind: chat.EvCancelled})
	ev(chat.Event{Kind: chat.EvTurnEnded})
	r.Close()

	raw, err := store.Transcript("7")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range raw {
		if strings.Contains(string(rec), secret) {
			t.Errorf("the state file holds the secret: %s", rec)
		}
	}
	turns, err := l.Turns(context.Background(), "7")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 3 {
		t.Fatalf("turns = %+v, want 3", turns)
	}
	first := turns[0]
	if first.Prompt != "deploy with "+redact.Placeholder {
		t.Errorf("prompt = %q", first.Prompt)
	}
	if first.Outcome != transcript.Done || !strings.HasPrefix(first.Answer, "done, key ") || first.CostUSD != 0.25 ||
		first.InTokens != 1200 || first.OutTokens != 80 || !first.RanAnyway || first.Ended.IsZero() {
		t.Errorf("first turn = %+v", first)
	}
	wantTools := []transcript.Tool{{Kind: "command", Input: "make deploy"}, {Kind: "file_change", Input: "main.go", Failed: true}}
	if len(first.Tools) != 2 || first.Tools[0] != wantTools[0] || first.Tools[1] != wantTools[1] {
		t.Errorf("tools = %+v, want %+v", first.Tools, wantTools)
	}
	if turns[1].Prompt != "again" || turns[1].Outcome != transcript.Refused {
		t.Errorf("refused turn = %+v", turns[1])
	}
	if turns[2].Outcome != transcript.Cancelled {
		t.Errorf("cancelled turn = %+v", turns[2])
	}
}

// A conversation keeps its last MaxTurns turns, and a long answer keeps
// its first MaxText bytes.
func TestTranscriptIsBounded(t *testing.T) {
	store := open(t)
	l := transcript.New(store, redact.New())
	r := l.Record(nil)
	long := strings.Repeat("é", transcript.MaxText)
	for i := 0; i < transcript.MaxTurns+5; i++ {
		r.Observe(chat.Event{Kind: chat.EvTurnStarted, Key: "k", Asked: "p"})
		r.Observe(chat.Event{Kind: chat.EvAnswer, Key: "k", Final: &chat.Final{Outcome: chat.OutcomeDone, Result: long}})
		r.Observe(chat.Event{Kind: chat.EvTurnEnded, Key: "k"})
	}
	r.Close()
	turns, err := l.Turns(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) == 0 || len(turns) > transcript.MaxTurns {
		t.Fatalf("%d turns kept, want 1 to %d", len(turns), transcript.MaxTurns)
	}
	size := 0
	for _, tr := range turns {
		size += len(tr.Answer)
		if len(tr.Answer) > transcript.MaxText+len(" …[cut]") || !strings.HasSuffix(tr.Answer, "[cut]") {
			t.Fatalf("an answer of %d bytes kept, want it cut to %d", len(tr.Answer), transcript.MaxText)
		}
	}
	if size > transcript.MaxBytes {
		t.Errorf("%d bytes of answers kept, want at most %d", size, transcript.MaxBytes)
	}
}
