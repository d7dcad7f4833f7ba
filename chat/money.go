package chat

import (
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// Money: what each turn cost, the limits on spending ([claude]
// daily_budget_usd, max_turn_usd) and the money of /status. The amounts
// live in prefs; a frontend shows them.

// recordCost returns what the turn cost: the increase of what the engine
// says the session has cost so far (engine.TurnCompleted.SessionCostUSD,
// which keeps growing across turns, --resume and re-attach), which is also
// added to the chat's total and today's spend.
func (t *turn) recordCost(tc engine.TurnCompleted) float64 {
	a, b := t.a, t.a.c
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
	if b.cfg.MaxTurnUSD > 0 && (cost > 0 || t.uncapped()) {
		// The CLI applies --max-budget-usd to everything a process spent
		// since it started, not to one turn (docs/protocol.md): the next
		// turn gets a process of its own, resuming the session, so its
		// limit is whole again (and is back after a Run anyway's).
		a.restartAfterTurn()
	}
	return cost
}

// overBudget tells whether today's spend (the turns' real costs, see
// turn.recordCost) reached [claude] daily_budget_usd,
// with the failure of the refused turn. A turn already running is never
// cut short: the budget is checked when a turn starts.
func (b *Core) overBudget() (Failure, bool) {
	if b.cfg.DailyBudget <= 0 {
		return Failure{}, false
	}
	spent, err := b.store.Spend(time.Now())
	if err != nil {
		b.log.Warn("could not read today's spend", "err", err)
		return Failure{}, false
	}
	if spent < b.cfg.DailyBudget {
		return Failure{}, false
	}
	return Failure{Kind: FailDailyBudget, Spent: spent, Budget: b.cfg.DailyBudget}, true
}

// stoppedAtTurnLimit tells a turn the engine stopped at the spending limit
// it was started with ([claude] max_turn_usd).
func stoppedAtTurnLimit(tc engine.TurnCompleted) bool {
	return tc.Outcome == engine.OutcomeBudgetStop
}

// Money is what a conversation and all of them spent: its total, today's
// spend of all, and the daily budget (0: none).
type Money struct {
	ConversationUSD, SpentToday, DailyBudget float64
}

// Money is the money of /status for the conversation key.
func (b *Core) Money(key string) Money {
	m := Money{DailyBudget: b.cfg.DailyBudget}
	var err error
	if m.ConversationUSD, err = b.store.Cost(key); err != nil {
		b.log.Warn("could not read the chat's cost", "session_key", key, "err", err)
	}
	if m.SpentToday, err = b.store.Spend(time.Now()); err != nil {
		b.log.Warn("could not read today's spend", "session_key", key, "err", err)
	}
	return m
}

// Spending is what the conversation key and all of them spent today and
// this month, as of now (zero when the store cannot be read: logged).
func (b *Core) Spending(key string, now time.Time) prefs.Spending {
	sp, err := b.store.Spending(key, now)
	if err != nil {
		b.log.Warn("could not read the spending", "session_key", key, "err", err)
	}
	return sp
}
