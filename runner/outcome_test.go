package runner

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

// saidReason tells whether the result's raw reason (subtype, terminal
// reason, api error) includes word.
func saidReason(tc engine.TurnCompleted, word string) bool {
	return slices.Contains(strings.Split(tc.Reason, "/"), word)
}

// recordedResult returns the first result line of a recorded session
// whose terminal_reason is terminal.
func recordedResult(t *testing.T, name, terminal string) string {
	t.Helper()
	for _, l := range recordedLines(t, name) {
		var head struct {
			Type           string `json:"type"`
			TerminalReason string `json:"terminal_reason"`
		}
		if json.Unmarshal(l, &head) == nil && head.Type == "result" && head.TerminalReason == terminal {
			return string(l)
		}
	}
	t.Fatalf("%s has no result with terminal_reason %q", name, terminal)
	return ""
}

// Each way a turn ends, as CLI 2.1.330 writes its result line, maps to the
// bot's outcome, and the line's own words stay in Reason for the log.
func TestResultOutcome(t *testing.T) {
	// Written as the CLI writes it at --max-budget-usd (docs/protocol.md,
	// TestContractMaxBudget); no recording holds one.
	const budget = `{"type":"result","subtype":"error_max_budget_usd","duration_ms":2311,"duration_api_ms":2290,"is_error":true,"num_turns":1,"stop_reason":"end_turn","session_id":"b7e0","total_cost_usd":0.1081,"usage":{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":12},"modelUsage":{},"permission_denials":[],"terminal_reason":"budget_exhausted","errors":["Reached maximum budget ($0.07)"]}`
	cases := []struct {
		name, line string
		want       engine.Outcome
		reason     string
	}{
		{"answer", recordedResult(t, "a_plain_text", "completed"), engine.OutcomeDone, "success/completed"},
		{"interrupt while a tool waits", recordedResult(t, "c_perm_deny_interrupt", "aborted_tools"), engine.OutcomeCancelled, "error_during_execution/aborted_tools"},
		{"interrupt while writing", recordedResult(t, "e_interrupt_stream", "aborted_streaming"), engine.OutcomeCancelled, "error_during_execution/aborted_streaming"},
		{"API error 400", recordedResult(t, "x_api_error_400", "api_error"), engine.OutcomeFailed, "success/api_error"},
		{"usage limit", lineLimitResult, engine.OutcomeUsageLimit, "success/api_error/usage_limit_reached"},
		{"max budget", budget, engine.OutcomeBudgetStop, "error_max_budget_usd/budget_exhausted"},
	}
	for _, c := range cases {
		tc, ok := decodeOne(t, newDecoder("/w"), c.line).(engine.TurnCompleted)
		if !ok {
			t.Fatalf("%s: no TurnCompleted", c.name)
		}
		if tc.Outcome != c.want || tc.Reason != c.reason || tc.OK != (c.want == engine.OutcomeDone) {
			t.Errorf("%s: outcome %q reason %q ok %v, want %q %q", c.name, tc.Outcome, tc.Reason, tc.OK, c.want, c.reason)
		}
	}
}

// A result whose terminal reason this version does not know is a failure
// unless it says success without an error.
func TestResultOutcomeUnknownReason(t *testing.T) {
	for _, c := range []struct {
		isError         bool
		subtype, reason string
		want            engine.Outcome
	}{
		{false, "success", "something_new", engine.OutcomeDone},
		{true, "error_during_execution", "something_new", engine.OutcomeFailed},
		{true, "error_max_turns", "max_turns", engine.OutcomeFailed},
		{true, "success", "", engine.OutcomeFailed},
	} {
		if got := outcome(c.isError, c.subtype, c.reason, ""); got != c.want {
			t.Errorf("outcome(%v, %q, %q) = %q, want %q", c.isError, c.subtype, c.reason, got, c.want)
		}
	}
}
