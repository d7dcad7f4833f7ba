package view

import (
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/human"
)

// What the owner cannot see from the phone: the subscription's usage
// limits, the API making Claude wait, the conversation being compacted and
// how full the context is. Shown as lines of the progress message, as
// notices, in the final footer and in /usage.

// Limit is a usage limit of the Claude subscription as Claude Code last
// reported it (its rate_limit_event).
type Limit struct {
	// Status is LimitAllowed, LimitWarning, LimitRejected or "" (unknown).
	Status string
	// Name is the CLI's name of the limit: "five_hour", "seven_day", ...
	Name     string
	ResetsAt time.Time // zero: not reported
	Used     float64   // share used, 0..1; 0: not reported
	// Now is when this is shown, to say how long until ResetsAt.
	Now time.Time
}

// Limit statuses.
const (
	LimitAllowed  = "allowed"
	LimitWarning  = "warning"
	LimitRejected = "reached"
)

var limitNames = map[string]string{
	"five_hour":                  "5-hour limit",
	"seven_day":                  "weekly limit",
	"seven_day_opus":             "weekly Opus limit",
	"seven_day_sonnet":           "weekly Sonnet limit",
	"seven_day_overage_included": "weekly limit",
	"overage":                    "extra usage limit",
}

// limitName says which limit, e.g. "5-hour limit"; "usage limit" when the
// CLI did not say or said something new.
func limitName(name string) string {
	if n, ok := limitNames[name]; ok {
		return n
	}
	return "usage limit"
}

// resets says when l resets: "resets at 14:00 (in 2 h 10 min)", "resets
// tomorrow 09:30 (in 21 h 40 min)"; "" when not reported.
func (l Limit) resets() string {
	if l.ResetsAt.IsZero() || l.Now.IsZero() {
		return ""
	}
	if !l.ResetsAt.After(l.Now) {
		return "should have reset by now"
	}
	when := human.Clock(l.ResetsAt, l.Now)
	if !strings.Contains(when, " ") { // a time today
		when = "at " + when
	}
	return "resets " + when + " (in " + human.Span(l.ResetsAt.Sub(l.Now)) + ")"
}

func percent(share float64) string { return strconv.Itoa(int(share*100+0.5)) + "%" }

// LimitLine is one line on a limit, e.g. "⛔ Usage limit reached (5-hour
// limit) — resets at 14:00 (in 2 h 10 min)" or "⚠️ 80% of your weekly limit
// used — resets Sat 08:00 (in 3 days 20 h)". Plain text, HTML-safe.
func LimitLine(l Limit) string {
	var s string
	switch l.Status {
	case LimitRejected:
		s = "⛔ Usage limit reached (" + limitName(l.Name) + ")"
	case LimitWarning:
		if l.Used > 0 {
			s = "⚠️ " + percent(l.Used) + " of your " + limitName(l.Name) + " used"
		} else {
			s = "⚠️ Nearing your " + limitName(l.Name)
		}
	default:
		return "✓ Within your usage limits"
	}
	if r := l.resets(); r != "" {
		s += " — " + r
	}
	return esc(s)
}

// UsageLimitNotice is the one message a chat gets when Claude stops at a
// usage limit: it ends the turn, which Claude Code does not retry.
func UsageLimitNotice(l Limit) string {
	return "<b>" + LimitLine(l) + "</b>\n" +
		"Claude Code stopped this turn: the subscription's " + esc(limitName(l.Name)) + " is used up. " +
		"The session is kept — send your message again once the limit has reset."
}

// UsageWarningNotice tells a chat, once per limit and reset, that a limit
// is nearly used up, or (status rejected) used up while extra usage pays
// for what follows: either way the turn goes on.
func UsageWarningNotice(l Limit) string {
	tail := "Claude goes on until the limit is reached; /usage shows where you stand."
	if l.Status == LimitRejected {
		tail = "Claude goes on, paid for by the account's extra usage."
	}
	return LimitLine(l) + "\n<i>" + tail + "</i>"
}

// Retry is Claude Code waiting to call the API again (a 429 that is not a
// usage limit, an overloaded or failing API).
// Retry is an API call Claude waits to repeat (the core's value).
type Retry = turnstate.Retry

func retryLine(r Retry) string {
	why := map[string]string{"rate_limit": "rate limited", "overloaded": "overloaded"}[r.Error]
	switch {
	case why != "":
	case r.HTTPStatus != 0:
		why = "error " + strconv.Itoa(r.HTTPStatus)
	default:
		why = "not reachable"
	}
	s := "🔁 The API is " + why + ": Claude retries"
	if r.Max > 0 {
		s += " (" + strconv.Itoa(r.Attempt) + " of " + strconv.Itoa(r.Max) + ")"
	}
	return esc(s + " in " + human.DurationUp(r.Delay))
}

// Compaction is Claude Code summarizing the conversation to free context.
// Compaction is the conversation being or having been compacted (the
// core's value).
type Compaction = turnstate.Compaction

func compactionLine(c Compaction) string {
	if c.Running {
		return "🗜 Compacting the conversation…"
	}
	s := "🗜 Context compacted"
	if c.Auto {
		s += " (it was nearly full)"
	}
	if c.Pre > 0 && c.Post > 0 {
		s += ": " + formatCount(c.Pre) + " → " + formatCount(c.Post) + " tokens"
	}
	return s
}

// progressNotes are the lines under the progress header about limits,
// retries, compaction and a stalled tool, newest concern last.
func progressNotes(p Progress) string {
	var lines []string
	if p.Limit != nil {
		lines = append(lines, LimitLine(*p.Limit))
	}
	if p.Retry != nil {
		lines = append(lines, retryLine(*p.Retry))
	}
	if p.Compaction != nil {
		lines = append(lines, compactionLine(*p.Compaction))
	}
	if p.Stall != nil {
		lines = append(lines, stallLine(*p.Stall))
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n" + strings.Join(lines, "\n")
}

// contextShown is how full the context must be before the footer says so.
const contextShown = 0.70

// contextPart is the footer's "context 78% full", from 70% up.
func contextPart(used, window int) string {
	if window <= 0 || float64(used) < contextShown*float64(window) {
		return ""
	}
	return "context " + percent(float64(used)/float64(window)) + " full"
}
