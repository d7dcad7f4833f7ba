package telegram

import (
	"fmt"

	"github.com/untether/untether/telegram/view"
)

// overBudget tells whether today's spend reached [claude] daily_budget_usd,
// with the message for the refused turn. A turn already running is never
// cut short: the budget is checked when a turn starts.
func (b *Bot) overBudget() (view.TurnError, bool) {
	if b.cfg.DailyBudget <= 0 {
		return view.TurnError{}, false
	}
	spent, err := b.store.Spend(b.now())
	if err != nil {
		b.log.Warn("could not read today's spend", "err", err)
		return view.TurnError{}, false
	}
	if spent < b.cfg.DailyBudget {
		return view.TurnError{}, false
	}
	return view.TurnError{What: "Daily budget reached",
		Detail: fmt.Sprintf("Turns cost $%.2f today; [claude] daily_budget_usd allows $%.2f a day.", spent, b.cfg.DailyBudget),
		Hint:   "New turns start again tomorrow (midnight on the bot's machine). Raise daily_budget_usd in the config and restart the bot to continue now."}, true
}
