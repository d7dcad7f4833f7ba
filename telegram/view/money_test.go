package view

import (
	"strings"
	"testing"
)

func TestDollars(t *testing.T) {
	for _, c := range []struct {
		usd  float64
		want string
	}{
		{0, "$0.00"}, {0.05, "$0.05"}, {0.015, "$0.0150"}, {0.054, "$0.0540"}, {0.0539, "$0.0539"}, {0.053912, "$0.0539"},
		{0.00004, "$0.00"}, {0.5, "$0.50"}, {0.99996, "$1.00"}, {1, "$1.00"}, {12.345, "$12.35"}, {-1, "$0.00"},
	} {
		if got := Dollars(c.usd); got != c.want {
			t.Errorf("Dollars(%v) = %q, want %q", c.usd, got, c.want)
		}
	}
}

func TestTurnBudgetStopped(t *testing.T) {
	footer := FinalFooter(Footer{Cost: 0.1081, OK: true})
	got := TurnBudgetStopped(0.07, footer)
	checkHTML(t, "budget stop", got)
	for _, want := range []string{"⏹ <b>Turn stopped: spending limit reached</b>", "max_turn_usd ($0.07)",
		"send “continue”", "<i>$0.1081"} {
		if !strings.Contains(got, want) {
			t.Errorf("message lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(TurnBudgetStopped(0, ""), "()") {
		t.Error("an unknown limit is shown empty")
	}
	refusal := DailyBudgetReached(0.15, 0.12)
	if !strings.Contains(refusal.Detail, "Turns cost $0.15 today; [claude] daily_budget_usd allows $0.12 a day.") {
		t.Errorf("refusal detail = %q", refusal.Detail)
	}
}
