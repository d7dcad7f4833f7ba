package web

import (
	"time"

	"github.com/untether/untether/human"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
)

// The chat page's money and schedules: the month's spend per day as a
// bar chart drawn here (SVG, no script, no third party), and the chat's
// schedules with their next run.

// chart is a bar chart of the month's days, in SVG user units.
type chart struct {
	Width, Height int
	Bars          []bar
	Today, Month  string // the chat's
	AllToday      string // all chats'
	AllMonth      string
	MonthName     string
	Max           string // the top of the scale
	Base          int    // the bars' baseline
}

type bar struct {
	X, Y, W, H float64
	TextY      int // the day's number, under the bars
	Day        int
	Label      string // "Nov 21: $0.05"
	Today      bool
}

// Chart geometry: 31 slots fit any month.
const (
	chartW, chartH = 620, 160
	chartSlot      = 20
	chartPad       = 16 // the bottom row of day numbers
)

// spendChart draws key's month up to now.
func spendChart(days []prefs.DaySpend, now time.Time) chart {
	c := chart{Width: chartW, Height: chartH, MonthName: now.Format("January 2006")}
	var top, month, all, allMonth, today float64
	for _, d := range days {
		top = max(top, d.Chat)
		month += d.Chat
		allMonth += d.All
		if d.Day.Day() == now.Day() {
			today, all = d.Chat, d.All
		}
	}
	c.Today, c.Month, c.AllToday, c.AllMonth, c.Max = human.Dollars(today), human.Dollars(month), human.Dollars(all),
		human.Dollars(allMonth), human.Dollars(top)
	room := float64(chartH - chartPad)
	c.Base = chartH - chartPad
	for i, d := range days {
		h := 0.0
		if top > 0 {
			h = d.Chat / top * (room - 4)
		}
		if d.Chat > 0 {
			h = max(h, 1) // a cent is seen
		}
		c.Bars = append(c.Bars, bar{X: float64(i*chartSlot + 2), Y: room - h, W: chartSlot - 4, H: h, TextY: chartH - 3, Day: i + 1,
			Label: d.Day.Format("Jan 2") + ": " + human.Dollars(d.Chat), Today: d.Day.Day() == now.Day()})
	}
	return c
}

// scheduleView is one schedule as the page shows it.
type scheduleView struct {
	Rule, Prompt, Next, In string
}

// schedules are key's schedules, soonest first, with their next run.
func (s *Server) schedules(key string) []scheduleView {
	all, err := s.cfg.Store.Schedules()
	if err != nil {
		s.cfg.Log.Warn("web: could not read the schedules", "session_key", key, "err", err)
		return nil
	}
	now, loc := s.cfg.Now(), s.cfg.Location
	var out []scheduleView
	for _, sc := range all {
		if sc.Key != key {
			continue
		}
		r := schedule.Rule{At: sc.At, Every: sc.Every, Cron: sc.Cron}
		out = append(out, scheduleView{Rule: schedule.Words(r, now, loc), Prompt: s.cfg.Redactor.String(sc.Prompt),
			Next: schedule.When(sc.Next, now, loc), In: human.Span(sc.Next.Sub(now))})
	}
	return out
}

// money is the chart of key's month, or nil when it cannot be read.
func (s *Server) money(key string) *chart {
	now := s.cfg.Now() // the spend's days are the bot's local ones (prefs)
	days, err := s.cfg.Store.MonthSpend(key, now)
	if err != nil {
		s.cfg.Log.Warn("web: could not read the month's spend", "session_key", key, "err", err)
		return nil
	}
	c := spendChart(days, now)
	return &c
}
