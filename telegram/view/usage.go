package view

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/human"
)

// Usage is what /usage shows: what turns cost, where the subscription's
// usage limits stand, and the Claude processes that are running.
type Usage struct {
	ChatToday, ChatMonth float64 // this chat
	AllToday, AllMonth   float64 // all chats
	DailyBudget          float64 // 0: none
	// Limit is the last usage-limit status Claude Code reported (any
	// chat), Seen when; nil: none since the bot started.
	Limit *Limit
	Seen  time.Time
	Procs []Proc
}

// Proc is one live Claude process.
type Proc struct {
	Chat    string // the session key: chat id, or chat id:topic
	This    bool   // the chat /usage was sent in
	Age     time.Duration
	Working bool // a turn is running
}

// UsageText renders /usage.
func UsageText(u Usage) string {
	// This chat's process first, then the oldest.
	u.Procs = slices.Clone(u.Procs)
	slices.SortStableFunc(u.Procs, func(x, y Proc) int {
		switch {
		case x.This != y.This:
			if x.This {
				return -1
			}
			return 1
		case x.Age != y.Age:
			if x.Age > y.Age {
				return -1
			}
			return 1
		}
		return 0
	})
	lines := []string{"📈 <b>Usage</b>",
		"This chat: " + Dollars(u.ChatToday) + " today · " + Dollars(u.ChatMonth) + " this month"}
	all := "All chats: " + Dollars(u.AllToday) + " today · " + Dollars(u.AllMonth) + " this month"
	if u.DailyBudget > 0 {
		all += " <i>(daily budget " + Dollars(u.DailyBudget) + ")</i>"
	}
	lines = append(lines, all, "")
	switch {
	case u.Limit == nil:
		lines = append(lines, "Usage limits: <i>no report yet (Claude Code reports them for subscriptions, not for API keys)</i>")
	default:
		line := "Usage limits: " + LimitLine(*u.Limit)
		if !u.Seen.IsZero() && !u.Limit.Now.IsZero() {
			line += " <i>(reported " + esc(human.Duration(u.Limit.Now.Sub(u.Seen))) + " ago)</i>"
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	if len(u.Procs) == 0 {
		lines = append(lines, "Claude processes: none running")
	} else {
		lines = append(lines, "Claude processes: "+strconv.Itoa(len(u.Procs)))
		for _, p := range u.Procs {
			who := "chat <code>" + escHead(oneLine(p.Chat), 100) + "</code>"
			if p.This {
				who = "this chat"
			}
			state := "idle"
			if p.Working {
				state = "working"
			}
			lines = append(lines, "• "+who+" — "+state+", started "+esc(human.Duration(p.Age))+" ago")
		}
	}
	return fit(strings.Join(lines, "\n"))
}
