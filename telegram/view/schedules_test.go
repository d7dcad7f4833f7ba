package view

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/schedule"
)

// Every schedule text is valid Telegram HTML whatever it shows (prompts,
// trigger bodies and names with <, & and quotes), and names its zone.
func TestScheduleTextsAreHTML(t *testing.T) {
	nasty := `/tmp/<b>a & "b"</b>`
	loc := time.FixedZone("CET", 3600)
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, loc)
	next := now.Add(90 * time.Minute)
	items := []ScheduleItem{{Rule: nasty, Prompt: nasty, Next: next, Data: "x:1"}, {Rule: "Every day 09:00", Prompt: "p", Next: next, Config: true}}
	texts := map[string]string{
		"ScheduleAdded":  ScheduleAdded(nasty, false, nasty, next, now, loc),
		"ScheduleOnce":   ScheduleAdded(nasty, true, nasty, next, now, loc),
		"SchedulesText":  first(SchedulesText(items, now, loc)),
		"SchedulesEmpty": first(SchedulesText(nil, now, loc)),
		"Trigger":        OriginText(Origin{Trigger: true, Label: nasty, Body: nasty + strings.Repeat("x", 5000)}, now, loc),
		"TriggerEmpty":   OriginText(Origin{Trigger: true, Label: "ci"}, now, loc),
		"Schedule":       OriginText(Origin{Label: nasty, Prompt: nasty, Late: true, Due: now}, now, loc),
		"Queued":         QueuedRunNote(nasty, 2),
		"TooMany":        TooManySchedules(20),
	}
	for _, k := range []schedule.ErrKind{schedule.ErrNoWhen, schedule.ErrBadWhen, schedule.ErrPast, schedule.ErrNoPrompt,
		schedule.ErrBadSpec, schedule.ErrTooOften, schedule.ErrNever} {
		texts["ScheduleError"+string(rune('0'+k))] = ScheduleError("every", &schedule.Error{Kind: k, Input: nasty, Detail: nasty})
	}
	for name, text := range texts {
		checkHTML(t, name, text)
		if strings.Contains(text, "<b>a") {
			t.Errorf("%s shows a value unescaped: %s", name, text)
		}
	}
	if !strings.Contains(texts["ScheduleAdded"], "Thu 26 Nov 11:30 CET") || !strings.Contains(texts["SchedulesText"], "times in CET") {
		t.Errorf("times without their zone:\n%s\n%s", texts["ScheduleAdded"], texts["SchedulesText"])
	}
	if k := SchedulesKeyboard(items); len(k) != 1 || len(k[0]) != 1 || k[0][0].Text != "✖ 1" {
		t.Errorf("keyboard = %v, want one ✖ for the user's schedule (the config's has none)", k)
	}
}

func first(s string, _ int) string { return s }

// A long list stops before Telegram's limit and says what it left out.
func TestSchedulesTextFits(t *testing.T) {
	now := time.Now()
	var items []ScheduleItem
	for range 60 {
		items = append(items, ScheduleItem{Rule: "Cron " + strings.Repeat("1,", 100) + " * * * *", Prompt: strings.Repeat("&", 500), Next: now})
	}
	text, shown := SchedulesText(items, now, time.UTC)
	checkHTML(t, "long list", text)
	if shown == 0 || shown == len(items) || !strings.Contains(text, "… and "+strconv.Itoa(len(items)-shown)+" more.") {
		t.Errorf("shown %d of %d:\n%s", shown, len(items), text)
	}
}

func TestScheduleRuleWords(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, berlin)
	cases := map[string]schedule.Rule{
		"Every weekday 09:00 Europe/Berlin":        {Cron: "0 9 * * 1-5"},
		"Every day 07:05 Europe/Berlin":            {Cron: "5 7 * * *"},
		"Every Monday 18:30 Europe/Berlin":         {Cron: "30 18 * * 1"},
		"Cron */15 * * * * (Europe/Berlin)":        {Cron: "*/15 * * * *"},
		"Every hour":                               {Every: time.Hour},
		"Every 36 hours":                           {Every: 36 * time.Hour},
		"Every 2 days":                             {Every: 48 * time.Hour},
		"Every 90 minutes":                         {Every: 90 * time.Minute},
		"Once, Sat 2 Jan 2027 08:00 Europe/Berlin": {At: time.Date(2027, 1, 2, 8, 0, 0, 0, berlin)},
	}
	for want, r := range cases {
		if got := ScheduleRule(r, now, berlin); got != want {
			t.Errorf("ScheduleRule(%+v) = %q, want %q", r, got, want)
		}
	}
}
