package view

import (
	"fmt"
	"strings"

	"github.com/untether/untether/human"
)

// Dollars is the one way an amount of money is shown: cents from $1 up;
// below that four decimals, where cents say nothing ("$0.0539",
// "$0.0150"), except for whole cents ("$0.05").
func Dollars(usd float64) string { return human.Dollars(usd) }

// DailyBudgetReached refuses a turn once today's spend reached
// [claude] daily_budget_usd.
func DailyBudgetReached(spent, budget float64) TurnError {
	return TurnError{What: "Daily budget reached",
		Detail: fmt.Sprintf("Turns cost %s today; [claude] daily_budget_usd allows %s a day.", Dollars(spent), Dollars(budget)),
		Hint:   "New turns start again tomorrow (midnight on the bot's machine). Raise daily_budget_usd in the config and restart the bot to continue now."}
}

// TurnBudgetStopped tells that Claude Code stopped a turn at
// [claude] max_turn_usd (limit; 0 when unknown), with the turn's footer
// (HTML from FinalFooter; may be empty).
func TurnBudgetStopped(limit float64, footer string) string {
	detail := "This turn reached the spending limit of [claude] max_turn_usd"
	if limit > 0 {
		detail += " (" + Dollars(limit) + ")"
	}
	detail += ". Claude checks it after each model call, so a turn can pass it by one call."
	text := ErrorText(TurnError{What: "Turn stopped: spending limit reached", Detail: detail,
		Hint: "The session is kept: send “continue” to let Claude go on with a fresh limit, or raise max_turn_usd in the config."})
	text = "⏹" + strings.TrimPrefix(text, "⚠️")
	if footer != "" {
		text += "\n\n" + footer
	}
	return fit(text)
}
