package runner

import (
	"encoding/json"
	"time"

	"github.com/untether/untether/engine"
)

// What the CLI says about limits and the context: usage limits
// (rate_limit_event), the context window of a result's model. See
// docs/protocol.md for what was measured.

// str is raw as a string, "" when it is anything else (null, an object):
// fields whose shape may change must not make a whole line unreadable.
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// contextWindow is the context window of model in a result's modelUsage
// (keyed by model name; "contextWindow" since CLI 2.1). Without model, or
// when it is missing, the largest window listed: the main model has the
// largest, a helper model (titles, subagents) a smaller one.
func contextWindow(raw json.RawMessage, model string) int {
	var usage map[string]struct {
		ContextWindow int `json:"contextWindow"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &usage) != nil {
		return 0
	}
	if u, ok := usage[model]; ok && u.ContextWindow > 0 {
		return u.ContextWindow
	}
	best := 0
	for _, u := range usage {
		best = max(best, u.ContextWindow)
	}
	return best
}

// rateLimited reads a rate_limit_info; what it cannot read stays zero.
func rateLimited(info json.RawMessage, raw []byte) engine.RateLimited {
	var i struct {
		Status         string  `json:"status"`
		ResetsAt       float64 `json:"resetsAt"` // Unix seconds
		RateLimitType  string  `json:"rateLimitType"`
		Utilization    float64 `json:"utilization"`
		IsUsingOverage bool    `json:"isUsingOverage"`
	}
	_ = json.Unmarshal(info, &i) // a shape we do not know leaves the zero values
	r := engine.RateLimited{Status: limitStatus(i.Status), Limit: i.RateLimitType, Utilization: i.Utilization, UsingOverage: i.IsUsingOverage,
		Raw: append(json.RawMessage(nil), raw...)}
	if i.ResetsAt > 0 {
		r.ResetsAt = time.Unix(int64(i.ResetsAt), 0)
	}
	return r
}

// limitStatus maps rate_limit_info's status to the bot's words.
func limitStatus(s string) engine.LimitStatus {
	switch s {
	case "allowed":
		return engine.LimitAllowed
	case "allowed_warning":
		return engine.LimitWarning
	case "rejected":
		return engine.LimitReached
	}
	return engine.LimitUnknown
}
