package accounts

import (
	"testing"
	"time"
)

var t0 = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

// A flood of distinct accounts cannot grow the table, nor buy more notices
// than all strangers share.
func TestAccountsBoundedUnderDistinctStrangers(t *testing.T) {
	tab := New(Kept, DefaultPressBurst)
	notices := 0
	now := t0
	for i := range 10_000 {
		now = now.Add(time.Millisecond)
		if tab.Stranger(int64(1_000_000+i), now) {
			notices++
		}
	}
	if n := tab.Len(); n > Kept {
		t.Errorf("%d accounts remembered after 10,000 strangers, want at most %d", n, Kept)
	}
	// 10 s of flood: the burst, and one more per strangersEvery.
	if want := strangersBurst + int(10*time.Second/strangersEvery); notices > want {
		t.Errorf("%d notices for 10,000 strangers in 10 s, want at most %d", notices, want)
	}
	n, users, _, ok := tab.Summary(now.Add(summaryEvery))
	if !ok || n != 10_000 || users != 10_000 {
		t.Errorf("summary = %d updates from %d users (ok %v), want 10000 from 10000", n, users, ok)
	}
	if _, _, _, ok := tab.Summary(now.Add(2 * summaryEvery)); ok {
		t.Error("a summary with nothing new to say")
	}
}

func TestAccountsOneNoticePerStrangerPerInterval(t *testing.T) {
	tab := New(Kept, DefaultPressBurst)
	if !tab.Stranger(7, t0) {
		t.Fatal("the first update from a stranger gets no notice")
	}
	for i := range 100 {
		if tab.Stranger(7, t0.Add(time.Duration(i)*time.Second)) {
			t.Fatalf("a second notice after %ds", i)
		}
	}
	if !tab.Stranger(7, t0.Add(refusalEvery)) {
		t.Error("no notice once the interval passed")
	}
	// Counted once per summary interval, however often they write.
	if _, users, _, _ := tab.Summary(t0.Add(refusalEvery)); users != 1 {
		t.Errorf("users = %d, want 1", users)
	}
}

func TestAccountsPressBucket(t *testing.T) {
	tab := New(Kept, DefaultPressBurst)
	for i := range DefaultPressBurst {
		if ok, _ := tab.Press(1, t0); !ok {
			t.Fatalf("press %d of a burst refused", i+1)
		}
	}
	ok, tell := tab.Press(1, t0)
	if ok || !tell {
		t.Fatalf("press beyond the burst: ok %v tell %v, want refused and told", ok, tell)
	}
	if ok, tell := tab.Press(1, t0.Add(PressEvery/2)); ok || tell {
		t.Fatalf("second press beyond: ok %v tell %v, want refused silently", ok, tell)
	}
	if ok, _ := tab.Press(1, t0.Add(PressEvery)); !ok {
		t.Error("no press earned back after PressEvery")
	}
	if ok, _ := tab.Press(2, t0); !ok {
		t.Error("one user's flood limited another")
	}
}

// Least recently seen goes first: an account in use is kept.
func TestAccountsEvictLeastRecentlySeen(t *testing.T) {
	tab := New(3, DefaultPressBurst)
	tab.Stranger(1, t0)
	tab.Stranger(2, t0)
	tab.Stranger(3, t0)
	tab.Stranger(1, t0) // 1 is recent again; 2 is the oldest
	tab.Stranger(4, t0)
	if _, ok := tab.byID[2]; ok || tab.Len() != 3 {
		t.Errorf("kept %v, want 1, 3, 4", tab.byID)
	}
	if tab.Stranger(1, t0.Add(time.Minute)) {
		t.Error("account 1 was forgotten: it got a second notice")
	}
}
