package schedule

import (
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ErrKind names what is wrong with a schedule's input; the bot turns it
// into a sentence with an example (telegram/view).
type ErrKind int

const (
	ErrNoWhen   ErrKind = iota + 1 // /at without anything
	ErrBadWhen                     // not a duration, time or date
	ErrPast                        // a time that has passed
	ErrNoPrompt                    // nothing to run
	ErrBadSpec                     // not a duration or a cron expression
	ErrTooOften                    // a repeat shorter than MinEvery
	ErrNever                       // a cron expression no date matches
)

// Error is bad input to /at, /every or the config.
type Error struct {
	Kind   ErrKind
	Input  string // the part that was not understood
	Detail string // the cron parser's words, when it has some
}

func (e *Error) Error() string {
	msg := map[ErrKind]string{ErrNoWhen: "no time given", ErrBadWhen: "not a duration, time or date",
		ErrPast: "the time has passed", ErrNoPrompt: "no prompt given", ErrBadSpec: "not a duration or a cron expression",
		ErrTooOften: "repeats more often than every " + MinEvery.String(), ErrNever: "the cron expression never matches"}[e.Kind]
	if e.Input != "" {
		msg += ": " + strconv.Quote(e.Input)
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// ParseDuration reads a duration as people write it for schedules: Go's
// units (90s, 30m, 2h, 1h30m) and days (1d, 2d12h). It must be positive.
func ParseDuration(s string) (time.Duration, bool) {
	var days time.Duration
	if d, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 || n > 3660 {
			return 0, false
		}
		days, s = time.Duration(n)*24*time.Hour, rest
	}
	var dur time.Duration
	if s != "" {
		var err error
		if dur, err = time.ParseDuration(s); err != nil {
			return 0, false
		}
	}
	total := days + dur
	return total, total > 0
}

// ParseAt reads /at's arguments, "WHEN PROMPT", at now in loc. WHEN is a
// duration from now (90s, 2h), a time of day (14:30: today, or tomorrow
// once it has passed), "today 14:30", "tomorrow 9:00" or a date and time
// ("2026-12-01 08:00"). A named day or date that has passed is an error.
func ParseAt(args string, now time.Time, loc *time.Location) (time.Time, string, error) {
	words := strings.Fields(args)
	if len(words) == 0 {
		return time.Time{}, "", &Error{Kind: ErrNoWhen}
	}
	now = now.In(loc)
	var when time.Time
	used := 1
	first := strings.ToLower(words[0])
	if d, ok := ParseDuration(first); ok {
		when = now.Add(d)
	} else if h, m, ok := clock(first); ok {
		when = time.Date(now.Year(), now.Month(), now.Day(), h, m, 0, 0, loc)
		if !when.After(now) {
			when = when.AddDate(0, 0, 1)
		}
	} else {
		day, ok := dayOf(first, now, loc)
		if !ok {
			return time.Time{}, "", &Error{Kind: ErrBadWhen, Input: words[0]}
		}
		if len(words) < 2 {
			return time.Time{}, "", &Error{Kind: ErrBadWhen, Input: words[0]}
		}
		h, m, ok := clock(words[1])
		if !ok {
			return time.Time{}, "", &Error{Kind: ErrBadWhen, Input: words[0] + " " + words[1]}
		}
		when = time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, loc)
		used = 2
		if !when.After(now) {
			return time.Time{}, "", &Error{Kind: ErrPast, Input: words[0] + " " + words[1]}
		}
	}
	prompt := rest(args, used)
	if prompt == "" {
		return time.Time{}, "", &Error{Kind: ErrNoPrompt}
	}
	return when, prompt, nil
}

// ParseEvery reads /every's arguments, "SPEC PROMPT". SPEC is a duration
// (6h, 1d) or a 5-field cron expression in quotes or braces ("0 9 * * 1-5",
// {0 9 * * 1-5}); Telegram's curly quotes count as quotes.
func ParseEvery(args string) (Rule, string, error) {
	args = strings.TrimSpace(args)
	if args == "" {
		return Rule{}, "", &Error{Kind: ErrBadSpec}
	}
	var r Rule
	var prompt string
	if open, size := firstRune(args); closers[open] != "" {
		body := args[size:]
		end := strings.IndexAny(body, closers[open])
		if end < 0 {
			return Rule{}, "", &Error{Kind: ErrBadSpec, Input: args}
		}
		r.Cron = strings.Join(strings.Fields(body[:end]), " ")
		_, csize := firstRune(body[end:])
		prompt = strings.TrimSpace(body[end+csize:])
	} else {
		word := strings.Fields(args)[0]
		d, ok := ParseDuration(strings.ToLower(word))
		if !ok {
			return Rule{}, "", &Error{Kind: ErrBadSpec, Input: word}
		}
		r.Every = d
		prompt = rest(args, 1)
	}
	if err := r.Check(); err != nil {
		return Rule{}, "", err
	}
	if r.Cron != "" && r.First(time.Now(), time.UTC).IsZero() {
		return Rule{}, "", &Error{Kind: ErrNever, Input: r.Cron}
	}
	if prompt == "" {
		return Rule{}, "", &Error{Kind: ErrNoPrompt}
	}
	return r, prompt, nil
}

// closers are the quotes and braces a cron expression may come in, by the
// one that opens it.
var closers = map[rune]string{'"': `"”“`, '“': `”"`, '„': `“”"`, '{': "}", '\'': "'’", '‘': "’'"}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

// rest is s without its first n words, trimmed; the prompt keeps its own
// line breaks and spacing.
func rest(s string, n int) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	for range n {
		i := strings.IndexFunc(s, unicode.IsSpace)
		if i < 0 {
			return ""
		}
		s = strings.TrimLeftFunc(s[i:], unicode.IsSpace)
	}
	return strings.TrimSpace(s)
}

// clock reads "14:30" or "9:00".
func clock(s string) (h, m int, ok bool) {
	hs, ms, found := strings.Cut(s, ":")
	if !found || len(ms) != 2 || len(hs) < 1 || len(hs) > 2 {
		return 0, 0, false
	}
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, false
	}
	return h, m, true
}

// dayOf reads "today", "tomorrow" or a date (2026-12-01) at now.
func dayOf(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	switch s {
	case "today":
		return now, true
	case "tomorrow":
		return now.AddDate(0, 0, 1), true
	}
	d, err := time.ParseInLocation("2006-01-02", s, loc)
	return d, err == nil
}
