package claudetest

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// Usage limits of a Claude subscription, as the Messages API reports them
// in response headers (the "unified" rate limit). The CLI reads them only
// for a claude.ai login, never with an API key (docs/protocol.md), hence
// SubscriptionEnv.

// windowAbbrev is how the headers name a limit's window.
var windowAbbrev = map[string]string{
	"five_hour":                  "5h",
	"seven_day":                  "7d",
	"seven_day_overage_included": "7d_oi",
	"overage":                    "overage",
}

// LimitReached is the API's answer once limit ("five_hour", "seven_day",
// ...) is used up until resets: a 429 whose headers say so. The CLI does
// not retry it: the turn ends at once.
func LimitReached(limit string, resets time.Time) Reply {
	r := Err(http.StatusTooManyRequests, "usage limit reached")
	r.Header = limitHeader("rejected", limit, resets)
	return r
}

// NearLimit returns r with the headers of a subscription that has used the
// share used (0..1) of limit, past the warning threshold, until resets.
func (r Reply) NearLimit(limit string, used, threshold float64, resets time.Time) Reply {
	h := limitHeader("allowed_warning", limit, resets)
	w := "anthropic-ratelimit-unified-" + windowAbbrev[limit] + "-"
	h.Set(w+"utilization", strconv.FormatFloat(used, 'f', -1, 64))
	h.Set(w+"reset", unix(resets))
	h.Set(w+"surpassed-threshold", strconv.FormatFloat(threshold, 'f', -1, 64))
	for k, v := range r.Header {
		h[k] = v
	}
	r.Header = h
	return r
}

func limitHeader(status, limit string, resets time.Time) http.Header {
	h := http.Header{}
	h.Set("anthropic-ratelimit-unified-status", status)
	h.Set("anthropic-ratelimit-unified-reset", unix(resets))
	h.Set("anthropic-ratelimit-unified-representative-claim", limit)
	return h
}

func unix(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// SubscriptionEnv is Env for a CLI logged in with a claude.ai subscription
// (an OAuth token, no API key), the setup whose usage limits the CLI
// reports. Start the runner without API billing, as the bot does.
func SubscriptionEnv(t testing.TB, apiURL string) (env []string, home string) {
	t.Helper()
	env, home = Env(t, apiURL)
	out := env[:0]
	for _, kv := range env {
		if kv != "ANTHROPIC_API_KEY=test-key" {
			out = append(out, kv)
		}
	}
	return append(out, "CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-test"), home
}
