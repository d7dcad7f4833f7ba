package telegram

import (
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/view"
)

// Money: what each turn cost, the limits on spending ([claude]
// daily_budget_usd, max_turn_usd) and the money lines of /status. The
// amounts live in prefs; view shows them.

// recordCost returns what the turn cost: the increase of what the engine
// says the session has cost so far (engine.TurnCompleted.SessionCostUSD,
// which keeps growing across turns, --resume and re-attach), which is also
// added to the chat's total and today's spend.
func (t *turn) recordCost(tc engine.TurnCompleted) float64 {
	a, b := t.a, t.a.b
	id := tc.SessionID
	if conn := a.liveConn(); id == "" && conn != nil {
		id = conn.SessionID()
	}
	if id == "" {
		if tc.SessionCostUSD > 0 {
			b.log.Warn("a turn's cost was not counted: no session id", "chat_id", a.place.ChatID, "total_usd", tc.SessionCostUSD)
		}
		return 0
	}
	cost, err := b.store.RecordTurnCost(a.key, id, tc.SessionCostUSD, time.Now())
	if err != nil {
		b.log.Warn("could not record the turn's cost", "chat_id", a.place.ChatID, "session_id", id, "err", err)
		return 0
	}
	if b.cfg.MaxTurnUSD > 0 && cost > 0 {
		// The CLI applies --max-budget-usd to everything a process spent
		// since it started, not to one turn (docs/protocol.md): the next
		// turn gets a process of its own, resuming the session, so its
		// limit is whole again.
		a.restartAfterTurn()
	}
	return cost
}

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

// stoppedAtTurnLimit tells a turn the engine stopped at the spending limit
// it was started with ([claude] max_turn_usd).
func stoppedAtTurnLimit(tc engine.TurnCompleted) bool {
	return tc.Outcome == engine.OutcomeBudgetStop
}

// statusMoney fills the money lines of /status: the chat's total, today's
// spend of all chats and the daily budget.
func (b *Bot) statusMoney(key string, s *view.Status) {
	var err error
	if s.ChatCostUSD, err = b.store.Cost(key); err != nil {
		b.log.Warn("could not read the chat's cost", "session_key", key, "err", err)
	}
	if s.SpentToday, err = b.store.Spend(time.Now()); err != nil {
		b.log.Warn("could not read today's spend", "session_key", key, "err", err)
	}
	s.DailyBudget = b.cfg.DailyBudget
}
