package prefs

import (
	"math"
	"testing"
	"time"
)

// near compares dollar amounts, which are sums of floats.
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// record is RecordTurnCost failing the test on an error.
func record(t *testing.T, s *Store, key, id string, total float64, now time.Time) float64 {
	t.Helper()
	c, err := s.RecordTurnCost(key, id, total, now)
	must(t, err)
	return c
}

// Claude Code reports the session's running total at every turn (0.05,
// 0.10, 0.15 for three equal turns, continuing after --resume and a bot
// restart): each turn costs the increase, never the total.
func TestRecordTurnCostIsTheIncrease(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.Local)
	must(t, s.StartSession("7", "A", "", ""))
	for i, total := range []float64{0.05, 0.10, 0.15} {
		if c := record(t, s, "7", "A", total, now); !near(c, 0.05) {
			t.Errorf("turn %d (total %v) cost %v, want 0.05", i+1, total, c)
		}
	}
	must(t, s.Close())

	s = openAt(t, path) // a bot restart; the next turn resumes A
	if c := record(t, s, "7", "A", 0.20, now); !near(c, 0.05) {
		t.Errorf("turn after a restart cost %v, want 0.05", c)
	}
	// /new, then a fresh session B starting at 0.
	must(t, s.ArchiveSession("7"))
	must(t, s.StartSession("7", "B", "", ""))
	if c := record(t, s, "7", "B", 0.03, now); !near(c, 0.03) {
		t.Errorf("first turn of a new session cost %v, want 0.03", c)
	}
	// /sessions back to A: its own stored total is the baseline.
	must(t, s.StartSession("7", "A", "", ""))
	if c := record(t, s, "7", "A", 0.26, now); !near(c, 0.06) {
		t.Errorf("turn after switching back cost %v, want 0.06", c)
	}
	chat, _ := s.Cost("7")
	day, _ := s.Spend(now)
	if !near(chat, 0.29) || !near(day, 0.29) {
		t.Errorf("chat total %v, day %v; want 0.29 both", chat, day)
	}
	if other, _ := s.Cost("8"); other != 0 {
		t.Errorf("another chat's total = %v", other)
	}
}

func TestRecordTurnCostOddTotals(t *testing.T) {
	s := openTest(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.Local)
	must(t, s.StartSession("7", "A", "", ""))
	record(t, s, "7", "A", 0.30, now)
	// No usable figure (a crash result is zeroed): free, baseline kept.
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if c := record(t, s, "7", "A", bad, now); c != 0 {
			t.Errorf("total %v cost %v, want 0", bad, c)
		}
	}
	if c := record(t, s, "7", "A", 0.32, now); !near(c, 0.02) {
		t.Errorf("after a zeroed result the next turn cost %v, want 0.02", c)
	}
	// The counter started again (a /clear): the total is the spend since.
	if c := record(t, s, "7", "A", 0.04, now); !near(c, 0.04) {
		t.Errorf("a total that went down cost %v, want 0.04", c)
	}
	if c := record(t, s, "7", "A", 0.05, now); !near(c, 0.01) {
		t.Errorf("the turn after cost %v, want 0.01 (new baseline)", c)
	}
	if chat, _ := s.Cost("7"); !near(chat, 0.37) {
		t.Errorf("chat total %v, want 0.37", chat)
	}
	if _, err := s.RecordTurnCost("7", "", 1, now); err == nil {
		t.Error("an empty session id was accepted")
	}
}

// Totals are kept for the sessions a chat can still resume, no more.
func TestRecordTurnCostBounded(t *testing.T) {
	s := openTest(t)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.Local)
	for i := range maxHistory + 5 {
		id := string(rune('a' + i))
		must(t, s.StartSession("7", id, "", ""))
		record(t, s, "7", id, 0.01, now)
	}
	rec, _, _ := s.Session("7")
	if len(rec.Totals) != maxHistory+1 {
		t.Errorf("%d totals kept, want %d", len(rec.Totals), maxHistory+1)
	}
	if _, ok := rec.Totals[rec.History[len(rec.History)-1].ID]; !ok {
		t.Error("the oldest resumable session lost its total")
	}
}

func TestDailySpend(t *testing.T) {
	s := openTest(t)
	day := time.Date(2026, 11, 21, 23, 59, 0, 0, time.Local)
	if v, err := s.Spend(day); err != nil || v != 0 {
		t.Fatalf("empty day: %v %v", v, err)
	}
	record(t, s, "1", "A", 0.25, day)
	record(t, s, "2", "B", 0.5, day.Add(-10*time.Hour)) // same date
	if got, _ := s.Spend(day); got != 0.75 {
		t.Errorf("total = %v, want 0.75", got)
	}
	next := day.Add(2 * time.Minute) // past midnight: a new day
	record(t, s, "1", "A", 0.35, next)
	if got, _ := s.Spend(next); !near(got, 0.1) {
		t.Errorf("new day total = %v", got)
	}
	if v, _ := s.Spend(day); v != 0.75 {
		t.Errorf("yesterday = %v", v)
	}
	// A month later the old days are gone.
	record(t, s, "1", "A", 1.35, day.AddDate(0, 0, 40))
	if v, _ := s.Spend(day); v != 0 {
		t.Errorf("a 40-day-old total is still kept: %v", v)
	}
}

// /usage: what turns cost today and this month, in one chat (a forum topic
// is a chat of its own) and in all chats, by the bot's local calendar.
func TestSpending(t *testing.T) {
	s := openTest(t)
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.Local)
	if sp, err := s.Spending("1", now); err != nil || sp != (Spending{}) {
		t.Fatalf("nothing spent yet: %+v %v", sp, err)
	}
	record(t, s, "1", "A", 0.10, time.Date(2026, 10, 31, 23, 0, 0, 0, time.Local)) // last month
	record(t, s, "1", "A", 0.30, time.Date(2026, 11, 2, 9, 0, 0, 0, time.Local))   // this month
	record(t, s, "1", "A", 0.35, now)                                              // today
	record(t, s, "1:5", "T", 0.40, now)                                            // a topic of chat 1: another chat
	record(t, s, "2", "B", 1.00, time.Date(2026, 11, 20, 9, 0, 0, 0, time.Local))  // yesterday, another chat
	sp, err := s.Spending("1", now)
	must(t, err)
	want := Spending{ChatToday: 0.05, ChatMonth: 0.25, AllToday: 0.45, AllMonth: 1.65}
	if !near(sp.ChatToday, want.ChatToday) || !near(sp.ChatMonth, want.ChatMonth) || !near(sp.AllToday, want.AllToday) || !near(sp.AllMonth, want.AllMonth) {
		t.Errorf("Spending = %+v, want %+v", sp, want)
	}
	if sp, _ := s.Spending("2", now); sp.ChatToday != 0 || !near(sp.ChatMonth, 1) {
		t.Errorf("chat 2: %+v", sp)
	}
	// The daily budget still reads the day of all chats alone.
	if day, _ := s.Spend(now); !near(day, 0.45) {
		t.Errorf("Spend(today) = %v, want 0.45", day)
	}
	// Old days go, a chat's with them.
	record(t, s, "1", "A", 0.50, now.AddDate(0, 0, 40))
	if sp, _ := s.Spending("1", now); sp.ChatMonth != 0 || sp.AllMonth != 0 {
		t.Errorf("40 days later the month is still kept: %+v", sp)
	}
}
