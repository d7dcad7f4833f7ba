// Package human says amounts the way people do. It is the one formatter
// of durations and sizes for texts people and Claude read: the bot's
// messages (how long ago, how long is left, how big a file is) and the
// approvals broker's messages to Claude (how long it waited, how long a
// cooldown lasts). It imports nothing of ours, so every package may use it.
package human

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A duration is said in its largest unit: seconds below a minute, minutes
// below an hour, hours below two days, then days.
var units = []struct {
	size      time.Duration
	one, many string
	below     time.Duration // the next unit takes over from here; 0: none
}{
	{time.Second, "second", "seconds", time.Minute},
	{time.Minute, "minute", "minutes", time.Hour},
	{time.Hour, "hour", "hours", 48 * time.Hour},
	{24 * time.Hour, "day", "days", 0},
}

// Duration says d in whole units, rounded down: "45 seconds", "1 minute",
// "3 hours", "2 days". Right for how long ago something happened.
func Duration(d time.Duration) string { return say(d, false) }

// DurationUp says d in whole units, rounded up: "59 seconds" and a bit is
// "1 minute". Right for how long is left, which must never be promised
// shorter than it is.
func DurationUp(d time.Duration) string { return say(d, true) }

func say(d time.Duration, up bool) string {
	d = max(d, 0)
	for _, u := range units {
		n := d / u.size
		if up && d%u.size != 0 {
			n++
		}
		if u.below != 0 && n*u.size >= u.below {
			continue // rounding may carry it into the next unit
		}
		if n == 1 {
			return "1 " + u.one
		}
		return strconv.FormatInt(int64(n), 10) + " " + u.many
	}
	panic("unreachable: the last unit has no bound")
}

// Bytes says a size the way file managers do: "512 B", "12 KB", "1.5 MB".
func Bytes(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 0, 64) + " KB"
	default:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	}
}

// Span says how long is left in two units, rounded up to the minute: "45
// min", "2 h 10 min", "3 days 4 h". Shorter than Duration's words, for a
// parenthesis: "resets at 14:00 (in 2 h 10 min)".
func Span(d time.Duration) string {
	m := int64((max(d, 0) + time.Minute - 1) / time.Minute)
	h, d2 := m/60, m/(60*24)
	switch {
	case m < 60:
		return strconv.FormatInt(m, 10) + " min"
	case h < 48:
		return pair(h, "h", m%60, "min")
	}
	return pair(d2, "days", h%24, "h")
}

func pair(n int64, unit string, rest int64, restUnit string) string {
	s := strconv.FormatInt(n, 10) + " " + unit
	if rest > 0 {
		s += " " + strconv.FormatInt(rest, 10) + " " + restUnit
	}
	return s
}

// Clock says when t is, from now, in now's time zone: "14:00" today,
// "tomorrow 09:30", "Tue 14:00" within the week, else "3 Dec 14:00".
func Clock(t, now time.Time) string {
	t = t.In(now.Location())
	day := func(offset int) time.Time {
		y, m, d := now.Date()
		return time.Date(y, m, d+offset, 0, 0, 0, 0, now.Location())
	}
	switch {
	case t.Before(day(0)) || !t.Before(day(7)):
	case t.Before(day(1)):
		return t.Format("15:04")
	case t.Before(day(2)):
		return "tomorrow " + t.Format("15:04")
	default:
		return t.Format("Mon 15:04")
	}
	return t.Format("2 Jan 15:04")
}

// Clip is s cut to n characters, with "…" where it was cut: an error's
// quote of what a program or an API said.
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// ClipTail is s cut to its last n characters, with "…" where it was cut:
// the end of a program's error output, where the reason is.
func ClipTail(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return "…" + string(r[len(r)-n:])
	}
	return s
}

// Dollars says an amount of US dollars: cents from a dollar up ("$1.25"),
// else to a hundredth of a cent ("$0.0539", "$0.0150"), whole cents short
// ("$0.05").
func Dollars(usd float64) string {
	if usd >= 1 {
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	}
	return "$" + strings.TrimSuffix(strconv.FormatFloat(max(usd, 0), 'f', 4, 64), "00")
}

// Count says a count of tokens short: "950", "12.5k", "1M".
func Count(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(max(n, 0))
	case n < 1_000_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64), ".0") + "k"
	}
	return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64), ".0") + "M"
}

// Elapsed says how long something ran, as a clock does: "42s", "3m 05s",
// "1h 02m".
func Elapsed(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %02dm", s/3600, s%3600/60)
}
