package telegram

import (
	"slices"
	"time"

	"github.com/untether/untether/telegram/view"
)

// /usage: what turns cost today and this month (this chat and all chats),
// the last usage-limit status Claude Code reported, and the Claude
// processes that are running, with their age.
func (b *Bot) usageText(key string) string {
	now := time.Now()
	u := view.Usage{DailyBudget: b.cfg.DailyBudget}
	if sp, err := b.store.Spending(key, now); err != nil {
		b.log.Warn("could not read the spending", "session_key", key, "err", err)
	} else {
		u.ChatToday, u.ChatMonth, u.AllToday, u.AllMonth = sp.ChatToday, sp.ChatMonth, sp.AllToday, sp.AllMonth
	}
	if l, seen := b.core.LastLimit(); l != nil {
		lv := view.LimitOf(*l, now)
		u.Limit, u.Seen = &lv, seen
	}
	for _, p := range b.core.Procs(now) {
		u.Procs = append(u.Procs, view.Proc{Chat: p.Key, This: p.Key == key, Age: p.Age, Working: p.Working})
	}
	// This chat first, then the oldest.
	slices.SortFunc(u.Procs, func(x, y view.Proc) int {
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
	return view.UsageText(u)
}
