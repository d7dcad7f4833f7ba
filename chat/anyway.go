package chat

import (
	"errors"
	"sync"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/token"
)

// Run anyway: when the daily budget refuses a turn, or the engine stops
// one at the per-turn spending cap (max_turn_usd), the notice offers to run
// that prompt past the limit that stopped it, once. The offer is a token
// the core mints (Failure.Anyway, Final.Anyway): the frontend puts it on a
// button and hands it back to RunAnyway with the conversation it was
// pressed in. A token is spent by its first press and lives in this bot
// process only: a press after a restart, on another conversation's notice
// or a second time is refused (ErrAnywayStale). The prompt runs first in
// line, like /retry's, and its footer says what it ran past (Final.Overrun).

// ErrAnywayStale: the token names no stopped run of this conversation
// (pressed already, before a restart, or forged).
var ErrAnywayStale = errors.New("no stopped run to run anyway")

// Overrun is the spending limits a turn ran past (a bit each).
type Overrun uint8

const (
	// OverDailyBudget: the turn ran though today's spend had reached
	// daily_budget_usd.
	OverDailyBudget Overrun = 1 << iota
	// OverTurnCap: the turn ran without the engine's per-turn cap
	// (max_turn_usd).
	OverTurnCap
)

// anywayKept bounds the offers kept; older ones are refused as stale.
const anywayKept = 256

// anywayRun is a stopped run on offer: its prompt as queued, the prompts
// folded into it, and the limits it may run past.
type anywayRun struct {
	key    string
	qp     prefs.QueuedPrompt
	merged []uint64
	over   Overrun
}

// anywayBook holds the offers by token, and the runs pressed and not yet
// started, by conversation and prompt (two presses in a chat before
// either runs are two grants).
type anywayBook struct {
	mu      sync.Mutex
	offers  map[string]anywayRun
	order   []string
	pressed map[pressedRun]Overrun
}

// pressedRun names a run pressed: its conversation and prompt.
type pressedRun struct {
	key string
	seq uint64
}

// offer mints the token of a stopped run.
func (b *anywayBook) offer(r anywayRun) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.offers == nil {
		b.offers, b.pressed = map[string]anywayRun{}, map[pressedRun]Overrun{}
	}
	tok := token.New()
	b.offers[tok] = r
	b.order = append(b.order, tok)
	if len(b.order) > anywayKept {
		delete(b.offers, b.order[0])
		b.order = b.order[1:]
	}
	return tok
}

// take spends the offer tok of conversation key and marks its run pressed.
func (b *anywayBook) take(key, tok string) (anywayRun, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	r, ok := b.offers[tok]
	if !ok || r.key != key {
		return anywayRun{}, false
	}
	delete(b.offers, tok)
	b.pressed[pressedRun{key, r.qp.Seq}] |= r.over
	return r, true
}

// granted is what the run of prompt seq in conversation key may run past:
// once, for the run a press put first in line.
func (b *anywayBook) granted(key string, seq uint64) Overrun {
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := pressedRun{key, seq}
	over := b.pressed[pr]
	delete(b.pressed, pr)
	return over
}

// RunAnyway runs again the prompt whose run the limit of offer tok stopped,
// past that limit once, first in the conversation's line. The caller has
// checked who pressed (the owner, or an approver in a group).
func (c *Core) RunAnyway(key string, p Place, tok string) error {
	r, ok := c.anyway.take(key, tok)
	if !ok {
		return ErrAnywayStale
	}
	a := c.sessionFor(key, p)
	a.mu.Lock()
	a.retrying = append(a.retrying, unsentPrompt{qp: r.qp, merged: r.merged})
	a.startLocked()
	a.mu.Unlock()
	signal(a.wake)
	return nil
}

// offerAnyway is the token of an offer to run t's prompt past over too.
func (t *turn) offerAnyway(over Overrun) string {
	return t.a.c.anyway.offer(anywayRun{key: t.a.key, qp: t.orig, merged: t.merged, over: t.overrun | over})
}

// uncapped says whether the turn runs without the engine's per-turn cap:
// its process is one of its own, started without it.
func (t *turn) uncapped() bool {
	return t.overrun&OverTurnCap != 0 && t.a.c.cfg.MaxTurnUSD > 0
}
