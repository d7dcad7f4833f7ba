package telegram

import (
	"time"

	"github.com/untether/untether/telegram/view"
)

// overBudget tells whether today's spend (the turns' real costs, see
// turn.recordCost) reached [claude] daily_budget_usd,
// with the message for the refused turn. A turn already running is never
// cut short: the budget is checked when a turn starts.
func (b *Bot) overBudget() (view.TurnError, bool) {
	if b.cfg.DailyBudget <= 0 {
		return view.TurnError{}, false
	}
	spent, err := b.store.Spend(time.Now())
	if err != nil {
		b.log.Warn("could not read today's spend", "err", err)
		return view.TurnError{}, false
	}
	if spent < b.cfg.DailyBudget {
		return view.TurnError{}, false
	}
	return view.DailyBudgetReached(spent, b.cfg.DailyBudget), true
}
