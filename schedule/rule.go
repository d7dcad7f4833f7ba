// Package schedule is the timing of scheduled runs, without the bot: what
// /at's WHEN and /every's SPEC mean (durations, times of day, dates, cron
// expressions), when a rule runs next, how a missed run is caught up, and
// a loop that wakes at the next due time. It knows neither Telegram nor
// the state file; cron expressions are parsed by robfig/cron (the parser
// only: the timing is this package's, so tests can run it under
// testing/synctest).
package schedule

import (
	"time"

	"github.com/robfig/cron/v3"
)

// MinEvery is the shortest repeat /every and the config accept: a run a
// minute is already more than a person reads (cron's own resolution).
const MinEvery = time.Minute

// LateAfter is how far past its due time a run counts as late (the bot
// was down, or the machine asleep): it is marked so in its first message.
const LateAfter = 2 * time.Minute

// Rule says when a schedule runs: once (At), every Every from its first
// due time, or by a 5-field Cron expression in the schedule's time zone.
// Exactly one is set.
type Rule struct {
	At    time.Time
	Every time.Duration
	Cron  string
}

// Once reports a rule that runs a single time.
func (r Rule) Once() bool { return !r.At.IsZero() }

// cronParser takes exactly the five standard fields: no seconds, no
// descriptors (@daily), so what the docs show is all there is.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// parseCron parses a 5-field expression; a time zone prefix (TZ=…) is
// refused, the zone is the bot's ([schedules] timezone).
func parseCron(expr string) (cron.Schedule, error) {
	if len(expr) >= 3 && (expr[:3] == "TZ=" || (len(expr) >= 8 && expr[:8] == "CRON_TZ=")) {
		return nil, &Error{Kind: ErrBadSpec, Input: expr}
	}
	s, err := cronParser.Parse(expr)
	if err != nil {
		return nil, &Error{Kind: ErrBadSpec, Input: expr, Detail: err.Error()}
	}
	return s, nil
}

// Check validates a rule as the config gives it.
func (r Rule) Check() error {
	switch {
	case r.Cron != "":
		_, err := parseCron(r.Cron)
		return err
	case r.Every != 0:
		if r.Every < MinEvery {
			return &Error{Kind: ErrTooOften, Input: r.Every.String()}
		}
		return nil
	case r.Once():
		return nil
	}
	return &Error{Kind: ErrBadSpec}
}

// First is the rule's first due time after now, in loc; zero when it
// never runs (a cron expression no date matches, such as 30 February).
func (r Rule) First(now time.Time, loc *time.Location) time.Time {
	switch {
	case r.Once():
		return r.At
	case r.Every > 0:
		return now.Add(r.Every)
	case r.Cron != "":
		s, err := parseCron(r.Cron)
		if err != nil {
			return time.Time{}
		}
		return s.Next(now.In(loc))
	}
	return time.Time{}
}

// After is the due time that follows a run that was due at due and ran
// at now: zero for a one-off rule. However many due times were missed
// (the bot was down for a week), the next one lies after now: a missed
// run is caught up once, never once per missed time. A repeat keeps its
// phase (every 6h from 09:00 stays on 09:00, 15:00, …).
func (r Rule) After(due, now time.Time, loc *time.Location) time.Time {
	switch {
	case r.Once():
		return time.Time{}
	case r.Every > 0:
		if now.Before(due) {
			now = due
		}
		n := now.Sub(due)/r.Every + 1
		return due.Add(n * r.Every)
	case r.Cron != "":
		if now.Before(due) {
			now = due
		}
		return r.First(now, loc)
	}
	return time.Time{}
}

// Late reports whether a run due at due that starts at now is late.
func Late(due, now time.Time) bool { return now.Sub(due) > LateAfter }

// Zone names loc for people at time t: its IANA name when the owner set
// one, else the abbreviation in force then (the machine's zone is only
// "Local" to Go).
func Zone(t time.Time, loc *time.Location) string {
	if name := loc.String(); name != "Local" && name != "" {
		return name
	}
	abbr, _ := t.In(loc).Zone()
	return abbr
}
