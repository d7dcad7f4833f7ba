package telegram

import (
	"time"

	"github.com/untether/untether/telegram/view"
)

// /usage: what turns cost today and this month (this chat and all chats),
// the last usage-limit status Claude Code reported, and the Claude
// processes that are running, with their age.
func (b *Bot) usageText(key string) string {
	now := time.Now()
	u := view.Usage{DailyBudget: b.cfg.DailyBudget}
	sp := b.core.Spending(key, now)
	u.ChatToday, u.ChatMonth, u.AllToday, u.AllMonth = sp.ChatToday, sp.ChatMonth, sp.AllToday, sp.AllMonth
	if l, seen := b.core.LastLimit(); l != nil {
		lv := view.LimitOf(*l, now)
		u.Limit, u.Seen = &lv, seen
	}
	for _, p := range b.core.Procs(now) {
		u.Procs = append(u.Procs, view.Proc{Chat: p.Key, This: p.Key == key, Age: p.Age, Working: p.Working})
	}
	return view.UsageText(u)
}
