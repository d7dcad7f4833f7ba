package view

import (
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/human"
	"github.com/untether/untether/schedule"
)

// Scheduled and triggered runs: /at, /every, /schedules, and the first
// message of a run no one typed. Every time shown names its zone.

// ScheduleWhen is a due time as /at, /every and /schedules show it
// (schedule.When).
func ScheduleWhen(t, now time.Time, loc *time.Location) string { return schedule.When(t, now, loc) }

// ScheduleRule says a rule in words (schedule.Words).
func ScheduleRule(r schedule.Rule, now time.Time, loc *time.Location) string {
	return schedule.Words(r, now, loc)
}

// ScheduleAdded confirms /at (once) or /every, with the prompt as it was
// read, so a time taken for the prompt's first word shows.
func ScheduleAdded(rule string, once bool, prompt string, next, now time.Time, loc *time.Location) string {
	when := esc(ScheduleWhen(next, now, loc)) + " (in " + human.Span(next.Sub(now)) + ")"
	quoted := "\n<i>" + escHead(oneLine(prompt), 300) + "</i>\n"
	if once {
		return "⏰ Scheduled for " + when + ":" + quoted + "/schedules lists this chat's schedules."
	}
	return "⏰ Scheduled: " + escHead(oneLine(rule), 200) + quoted + "Next run: " + when + ". /schedules lists this chat's schedules."
}

// ScheduleItem is one line of /schedules.
type ScheduleItem struct {
	Rule   string
	Prompt string
	Next   time.Time
	Config bool   // set up in the config: no ✖ button
	Data   string // callback data of its ✖ button
}

// schedulesRoom is how much of a message the list of /schedules fills
// before it stops (Telegram's limit is 4096).
const schedulesRoom = 3500

// SchedulesText lists a chat's schedules, numbered like their buttons; a
// list too long for one message stops early and says how many it left
// out. shown is how many it lists (give SchedulesKeyboard as many).
func SchedulesText(items []ScheduleItem, now time.Time, loc *time.Location) (text string, shown int) {
	if len(items) == 0 {
		return "⏰ No schedules in this chat. Add one with /at or /every, e.g.\n" +
			"<code>/at 30m check the build</code>\n<code>/every \"0 9 * * 1-5\" summarise last night's CI</code>", 0
	}
	var b strings.Builder
	b.WriteString("⏰ <b>Schedules of this chat</b> (times in " + esc(schedule.Zone(now, loc)) + ")\n")
	for i, it := range items {
		line := "\n" + strconv.Itoa(i+1) + ". " + escHead(oneLine(it.Rule), 120) + " — next " + esc(ScheduleWhen(it.Next, now, loc))
		if it.Config {
			line += " <i>(config)</i>"
		}
		line += "\n<i>" + escHead(oneLine(it.Prompt), 100) + "</i>\n"
		if units(b.String())+units(line) > schedulesRoom {
			b.WriteString("\n… and " + strconv.Itoa(len(items)-i) + " more.")
			return b.String(), i
		}
		b.WriteString(line)
	}
	return b.String(), len(items)
}

// SchedulesKeyboard is a ✖ button per removable schedule, by its number.
func SchedulesKeyboard(items []ScheduleItem) Keyboard {
	var row []Button
	var k Keyboard
	for i, it := range items {
		if it.Data == "" {
			continue
		}
		row = append(row, Button{Text: "✖ " + strconv.Itoa(i+1), Data: it.Data})
		if len(row) == 4 {
			k, row = append(k, row), nil
		}
	}
	if len(row) > 0 {
		k = append(k, row)
	}
	return k
}

// Toasts of a ✖ press.
const (
	ToastScheduleRemoved = "Schedule removed."
	ToastScheduleGone    = "That schedule is no longer there."
)

// TooManySchedules refuses /at or /every past the chat's limit.
func TooManySchedules(max int) string {
	return "⛔ This chat has " + strconv.Itoa(max) + " schedules, the most it may have. Remove one with /schedules first."
}

// ScheduleError says what is wrong with /at's or /every's input, with an
// example that works.
func ScheduleError(cmd string, e *schedule.Error) string {
	var why string
	switch e.Kind {
	case schedule.ErrNoWhen, schedule.ErrBadWhen:
		why = "I could not read the time"
		if e.Input != "" {
			why += " <code>" + escHead(e.Input, 100) + "</code>"
		}
		why += ". Use a duration (<code>90s</code>, <code>30m</code>, <code>2h</code>), a time (<code>14:30</code>, " +
			"<code>tomorrow 9:00</code>) or a date and time (<code>2026-12-01 08:00</code>)."
	case schedule.ErrPast:
		why = "<code>" + escHead(e.Input, 100) + "</code> has already passed."
	case schedule.ErrNoPrompt:
		why = "What should Claude do then? Put the prompt after the time."
	case schedule.ErrBadSpec:
		why = "I could not read the repeat"
		if e.Input != "" {
			why += " <code>" + escHead(e.Input, 100) + "</code>"
		}
		why += ". Use a duration (<code>6h</code>, <code>1d</code>) or a cron expression of five fields in quotes " +
			"(minute hour day month weekday)"
		if e.Detail != "" {
			why += ": " + escHead(e.Detail, 200)
		}
		why += "."
	case schedule.ErrTooOften:
		why = "That repeats too often: the shortest repeat is " + human.Duration(schedule.MinEvery) + "."
	case schedule.ErrNever:
		why = "The cron expression <code>" + escHead(e.Input, 100) + "</code> matches no date."
	}
	example := "<code>/at 30m check the build</code> or <code>/at tomorrow 9:00 summarise the open PRs</code>"
	if cmd == "every" {
		example = "<code>/every 6h check the dependencies</code> or <code>/every \"0 9 * * 1-5\" summarise last night's CI</code>"
	}
	return "⛔ " + why + "\nFor example: " + example
}

// Origin is where a run no one typed came from, for its first message.
type Origin struct {
	Trigger bool   // a trigger's run (else a schedule's)
	Label   string // the schedule's rule in words, or the trigger's name
	Prompt  string // a schedule's prompt
	Late    bool
	Due     time.Time // when the schedule was due
	Body    string    // a trigger's body as received (cut before)
	Web     bool      // typed on the web view by Label
}

// OriginText is the first message of a scheduled or triggered run:
// "⏰ Every weekday 09:00 UTC — Summarise…", "🪝 ci" and the body it
// received, shown as quoted data.
func OriginText(o Origin, now time.Time, loc *time.Location) string {
	if o.Web {
		return "🌐 <b>" + escHead(oneLine(o.Label), 64) + "</b> on the web:\n" + escHead(o.Prompt, 3000)
	}
	if o.Trigger {
		out := "🪝 <b>" + esc(clip(oneLine(o.Label), 64)) + "</b> — a run started by this trigger. What it sent:"
		if strings.TrimSpace(o.Body) == "" {
			return out + " <i>(empty)</i>"
		}
		return out + "\n<blockquote expandable>" + escHead(o.Body, 3000) + "</blockquote>"
	}
	out := "⏰ " + escHead(oneLine(o.Label), 200) + " — " + escHead(oneLine(o.Prompt), 300)
	if o.Late {
		out += "\n<i>Late: it was due " + esc(ScheduleWhen(o.Due, now, loc)) + ", while I was offline.</i>"
	}
	return out
}

// QueuedRunNote says a scheduled or triggered run waits behind a turn.
func QueuedRunNote(label string, ahead int) string {
	return "⏳ " + esc(clip(oneLine(label), 80)) + ": its run waits for the current turn (" + strconv.Itoa(ahead) + " ahead)."
}

// SubscriptionNote is said once when schedules or triggers are used while
// Claude Code runs on a subscription login.
const SubscriptionNote = "ℹ️ Claude Code runs here on a Claude subscription login. Anthropic's consumer terms " +
	"restrict automated use of a subscription: for scheduled and triggered runs, use an API key " +
	"(ANTHROPIC_API_KEY, from console.anthropic.com). See docs/schedules.md."
