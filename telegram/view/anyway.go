package view

import (
	"strings"

	"github.com/untether/untether/chat"
)

// Run anyway: the button under a spending limit's notice, its toasts, and
// the footer's word on a turn that ran past a limit.

// AnywayPrefix is the callback data's prefix of a "Run anyway" button,
// followed by the core's token (chat.Failure.Anyway, chat.Final.Anyway).
const AnywayPrefix = "r:"

// AnywayKeyboard is the "Run anyway" button of a stopped run; nil without
// an offer.
func AnywayKeyboard(tok string) Keyboard {
	if tok == "" {
		return nil
	}
	return Keyboard{{{Text: "▶ Run anyway", Data: AnywayPrefix + tok}}}
}

// OverrunPart is the footer's word on a turn run past spending limits; ""
// for none.
func OverrunPart(o chat.Overrun) string {
	var past []string
	if o&chat.OverDailyBudget != 0 {
		past = append(past, "the daily budget")
	}
	if o&chat.OverTurnCap != 0 {
		past = append(past, "max_turn_usd")
	}
	if len(past) == 0 {
		return ""
	}
	return "⚠ ran past " + strings.Join(past, " and ")
}

// Toasts of a "Run anyway" press.
const (
	ToastRunAnyway   = "Running it past the limit, once"
	ToastAnywayStale = "This run is no longer on offer: send the message again"
)
