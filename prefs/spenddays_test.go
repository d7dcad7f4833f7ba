package prefs

import (
	"testing"
	"time"
)

// MonthSpend gives each day of the month up to today, the chat's and all
// chats', from the same records as Spending: last month's and another
// chat's stay out of the chat's days.
func TestMonthSpend(t *testing.T) {
	s := openTest(t)
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.Local)
	record(t, s, "1", "A", 0.10, time.Date(2026, 10, 31, 23, 0, 0, 0, time.Local)) // last month
	record(t, s, "1", "A", 0.30, time.Date(2026, 11, 2, 9, 0, 0, 0, time.Local))   // this month: 0.20
	record(t, s, "1", "A", 0.35, now)                                              // today: 0.05
	record(t, s, "1:5", "T", 0.40, now)                                            // another chat
	record(t, s, "2", "B", 1.00, time.Date(2026, 11, 20, 9, 0, 0, 0, time.Local))  // yesterday, another chat
	days, err := s.MonthSpend("1", now)
	must(t, err)
	if len(days) != 21 || days[0].Day.Day() != 1 || days[20].Day.Day() != 21 || days[20].Day.Month() != time.November {
		t.Fatalf("days %+v", days)
	}
	var chat, all float64
	for _, d := range days {
		chat, all = chat+d.Chat, all+d.All
	}
	sp, err := s.Spending("1", now)
	must(t, err)
	if !near(days[1].Chat, 0.20) || !near(days[20].Chat, 0.05) || !near(days[19].All, 1) || !near(days[20].All, 0.45) ||
		!near(chat, sp.ChatMonth) || !near(all, sp.AllMonth) {
		t.Errorf("MonthSpend = %+v, want the chat's 0.20 on the 2nd and 0.05 today, all 1.00 yesterday and 0.45 today (Spending %+v)", days, sp)
	}
}
