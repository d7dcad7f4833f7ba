package schedule

import (
	"strconv"
	"strings"
	"time"
)

// Schedules in words, as the bot's messages and the web view say them.

// When is a due time as /at, /every, /schedules and the web view show it:
// "Fri 27 Nov 09:00 Europe/Berlin", the year added when it is not now's.
func When(t, now time.Time, loc *time.Location) string {
	t = t.In(loc)
	layout := "Mon 2 Jan 15:04"
	if t.Year() != now.In(loc).Year() {
		layout = "Mon 2 Jan 2006 15:04"
	}
	return t.Format(layout) + " " + Zone(t, loc)
}

var weekdays = map[string]string{"*": "day", "1-5": "weekday", "0,6": "weekend day", "6,0": "weekend day",
	"0": "Sunday", "1": "Monday", "2": "Tuesday", "3": "Wednesday", "4": "Thursday", "5": "Friday", "6": "Saturday", "7": "Sunday"}

// Words says a rule in words, plain text: "Every weekday 09:00
// Europe/Berlin", "Every 6h", "Once, Fri 27 Nov 09:00 UTC", or the cron
// expression itself when it is not one of the simple daily shapes.
func Words(r Rule, now time.Time, loc *time.Location) string {
	switch {
	case r.Once():
		return "Once, " + When(r.At, now, loc)
	case r.Every > 0:
		return "Every " + everyText(r.Every)
	}
	f := strings.Fields(r.Cron)
	if len(f) == 5 && f[2] == "*" && f[3] == "*" && weekdays[f[4]] != "" {
		h, errH := strconv.Atoi(f[1])
		m, errM := strconv.Atoi(f[0])
		if errH == nil && errM == nil && h < 24 && m < 60 {
			return "Every " + weekdays[f[4]] + " " + twoDigits(h) + ":" + twoDigits(m) + " " + Zone(now, loc)
		}
	}
	return "Cron " + r.Cron + " (" + Zone(now, loc) + ")"
}

// everyText says a repeat exactly, in the largest unit that divides it:
// "hour", "6 hours", "90 minutes", "36 hours" (human.Duration would round
// 2d12h down to "2 days").
func everyText(d time.Duration) string {
	for _, u := range []struct {
		size      time.Duration
		one, many string
	}{{24 * time.Hour, "day", "days"}, {time.Hour, "hour", "hours"}, {time.Minute, "minute", "minutes"}} {
		if d%u.size == 0 {
			if n := d / u.size; n == 1 {
				return u.one
			} else {
				return strconv.FormatInt(int64(n), 10) + " " + u.many
			}
		}
	}
	return d.String()
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
