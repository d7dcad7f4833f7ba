package prefs

import (
	"math"
	"testing"
	"time"
)

func TestDailySpend(t *testing.T) {
	s := openTest(t)
	day := time.Date(2026, 11, 21, 23, 59, 0, 0, time.Local)
	if v, err := s.Spend(day); err != nil || v != 0 {
		t.Fatalf("empty day: %v %v", v, err)
	}
	must3f := func(v float64, err error) float64 { must(t, err); return v }
	must3f(s.AddSpend(day, 0.25))
	if got := must3f(s.AddSpend(day.Add(-10*time.Hour), 0.5)); got != 0.75 { // same date
		t.Errorf("total = %v, want 0.75", got)
	}
	next := day.Add(2 * time.Minute) // past midnight: a new day
	if got := must3f(s.AddSpend(next, 0.1)); got != 0.1 {
		t.Errorf("new day total = %v", got)
	}
	if v := must3f(s.Spend(day)); v != 0.75 {
		t.Errorf("yesterday = %v", v)
	}
	if _, err := s.AddSpend(day, math.NaN()); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := s.AddSpend(day, -1); err == nil {
		t.Error("negative cost accepted")
	}
	// A month later the old days are gone.
	must3f(s.AddSpend(day.AddDate(0, 0, 40), 1))
	if v := must3f(s.Spend(day)); v != 0 {
		t.Errorf("a 40-day-old total is still kept: %v", v)
	}
}
