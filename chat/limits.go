package chat

import (
	"sync"
	"time"

	"github.com/untether/untether/engine"
)

// What Claude Code says about the owner's usage limits, API retries and
// the context, turned into what the chat sees (docs/protocol.md, "Limits,
// retries and the context"):
//   - a usage limit reached ends the turn at once (the CLI does not retry):
//     its final message is the one notice, saying which limit and when it
//     resets;
//   - a warning threshold passed is told once per chat, limit and reset;
//   - an API retry (a 429 that is not a usage limit, an overloaded API)
//     shows in the progress message while Claude waits;
//   - compaction shows in the progress message;
//   - the footer says how full the context is from 70% up (finish.go).

// limitWatch keeps the last usage-limit status Claude Code reported, of
// any chat (the limits are the subscription's), for /usage, and the
// warning each chat was last told.
type limitWatch struct {
	mu     sync.Mutex
	last   *engine.RateLimited
	seen   time.Time
	warned map[string]string // session key → the warning it got (limit and reset)
}

// record keeps e as the last status seen and tells whether the chat key
// should be told of it: a warning, or a limit reached that extra usage
// pays for (the turn goes on), not yet told to this chat.
func (w *limitWatch) record(key string, e engine.RateLimited, now time.Time) (warn bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last, w.seen = &e, now
	if e.Status != engine.LimitWarning && (e.Status != engine.LimitReached || !e.UsingOverage) {
		return false
	}
	id := e.Limit + "@" + e.ResetsAt.String()
	if w.warned == nil {
		w.warned = map[string]string{}
	}
	if w.warned[key] == id {
		return false
	}
	w.warned[key] = id
	return true
}

// LastLimit is the last usage-limit status an agent reported, of any
// conversation (the limits are the subscription's), and when; nil if none.
func (c *Core) LastLimit() (*engine.RateLimited, time.Time) {
	w := &c.limits
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		return nil, time.Time{}
	}
	l := *w.last
	return &l, w.seen
}

// note applies the events about limits, retries and compaction to the
// turn's view.
func (t *turn) report(ev engine.Event) {
	a, b := t.a, t.a.c
	switch e := ev.(type) {
	case engine.RateLimited:
		b.log.Info("claude code reported a usage limit status", "chat_id", a.place.ChatID, "status", e.Status,
			"limit", e.Limit, "resets_at", e.ResetsAt, "utilization", e.Utilization)
		if b.limits.record(a.key, e, time.Now()) {
			b.note(a.key, a.place, t.qp.MessageID, NoteUsageWarning{Limit: e})
		}
	case engine.APIRetry:
		b.log.Info("claude code retries an API call", "chat_id", a.place.ChatID, "attempt", e.Attempt,
			"max_retries", e.MaxRetries, "delay", e.Delay, "status", e.HTTPStatus, "error", e.Error)
	case engine.Compacted:
		b.log.Info("claude code compacted the conversation", "chat_id", a.place.ChatID, "trigger", e.Trigger,
			"pre_tokens", e.PreTokens, "post_tokens", e.PostTokens)
	}
}

// limitStop tells whether tc ended at a usage limit (its notice is then
// the turn's final message).
func (t *turn) limitStop(tc engine.TurnCompleted) bool {
	return !tc.OK && (t.st.Limit != nil || tc.Outcome == engine.OutcomeUsageLimit)
}
