package runner

import (
	"strings"

	"github.com/untether/untether/engine"
)

// outcome maps a result line's report to the bot's words (docs/protocol.md,
// measured with CLI 2.1.330):
//   - done: is_error false and subtype "success" (an API error comes as
//     subtype "success" with is_error true, so never the subtype alone);
//   - budget stop: --max-budget-usd reached, subtype "error_max_budget_usd"
//     with terminal_reason "budget_exhausted";
//   - usage limit: api_error "usage_limit_reached" (a subscription's limit,
//     after a rate_limit_event "rejected");
//   - cancelled: an interrupt, terminal_reason "aborted_streaming" (while
//     the model wrote) or "aborted_tools" (while a tool ran or waited);
//   - failed: anything else.
func outcome(isError bool, subtype, terminal, apiError string) engine.Outcome {
	switch {
	case !isError && subtype == "success":
		return engine.OutcomeDone
	case subtype == "error_max_budget_usd" || terminal == "budget_exhausted":
		return engine.OutcomeBudgetStop
	case apiError == "usage_limit_reached":
		return engine.OutcomeUsageLimit
	case interrupted(terminal):
		return engine.OutcomeCancelled
	}
	return engine.OutcomeFailed
}

// interrupted tells the terminal reasons of a turn stopped by an interrupt.
func interrupted(terminal string) bool {
	return terminal == "aborted_streaming" || terminal == "aborted_tools"
}

// reason joins the result's own words for the log: subtype, terminal_reason
// and api_error, those that are set.
func reason(subtype, terminal, apiError string) string {
	var parts []string
	for _, p := range []string{subtype, terminal, apiError} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}
