package prefs

import (
	"testing"
	"time"
)

func TestHeldSessionsRoundTrip(t *testing.T) {
	s := openTest(t)
	if got, err := s.ListHeld(); err != nil || len(got) != 0 {
		t.Fatalf("a new file lists %+v, %v", got, err)
	}
	// Removing from a file that never had the bucket is not an error.
	if err := s.RemoveHeld("1"); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := HeldSession{Key: "1", ChatID: 1, Machine: "local", Handle: `{"dir":"/x"}`, Started: at,
		Turn: &HeldTurn{From: 7, MessageID: 42, Text: "go", UserID: 9, Started: at}}
	if err := s.PutHeld(h); err != nil {
		t.Fatal(err)
	}
	if err := s.PutHeld(HeldSession{Key: "2:5", ChatID: 2, ThreadID: 5, Handle: "h2"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListHeld()
	if err != nil || len(got) != 2 || got[0].Turn == nil || *got[0].Turn != *h.Turn || got[0].Handle != h.Handle || got[1].ThreadID != 5 {
		t.Fatalf("listed %+v, %v", got, err)
	}
	// The turn delivered: the record stays, without it.
	h.Turn = nil
	if err := s.PutHeld(h); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveHeld("2:5"); err != nil {
		t.Fatal(err)
	}
	got, err = s.ListHeld()
	if err != nil || len(got) != 1 || got[0].Turn != nil {
		t.Fatalf("after the turn and a removal: %+v, %v", got, err)
	}
	if err := s.PutHeld(HeldSession{}); err == nil {
		t.Error("a record without a key was stored")
	}
}
