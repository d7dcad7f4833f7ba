package telegram

import (
	"time"

	"context"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// sessionsCommand lists the chat's sessions with a button for each earlier
// one.
func (b *Bot) sessionsCommand(ctx context.Context, key string, pl place, replyTo int) {
	rec, _, err := b.store.Session(key)
	if err != nil {
		b.notify(pl, replyTo, view.SessionsUnreadable(b.redact(err.Error())))
		return
	}
	now := time.Now()
	var current *view.SessionItem
	if rec.SessionID != "" {
		current = &view.SessionItem{Title: b.redact(rec.Title), WorkDir: rec.WorkDir, When: rec.Started}
	}
	// Lists nobody used are forgotten after an hour.
	b.sessions.removeIf(func(c sessionChoice) bool { return now.Sub(c.created) > sessionTokenLife })
	var earlier []view.SessionItem
	for _, p := range rec.History {
		tok := b.sessions.add(sessionChoice{key: key, chatID: pl.ChatID, past: p, created: now})
		earlier = append(earlier, view.SessionItem{Title: b.redact(p.Title), WorkDir: p.WorkDir, When: p.Ended, Data: prefixSession + tok})
	}
	// Sent from the session's lane: what the chat sends next waits for it.
	if _, err := b.send(ctx, pl, replyTo, view.SessionsText(current, earlier, now), view.SessionsKeyboard(earlier), outbox.Normal); err != nil {
		b.log.Warn("could not send the session list", "chat_id", pl.ChatID, "err", err)
	}
}
