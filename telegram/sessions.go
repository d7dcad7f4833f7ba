package telegram

import (
	"context"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

const prefixSession = "s:"

// sessionTokenLife bounds how long a /sessions list's buttons work.
const sessionTokenLife = time.Hour

// sessionChoice is what a button of a /sessions list brings back. Its
// token lives in memory: after a restart the list is stale and says so.
type sessionChoice struct {
	key     string
	chatID  int64
	past    prefs.PastSession
	created time.Time
}

// sessionsCommand lists the chat's sessions with a button for each earlier
// one.
func (b *Bot) sessionsCommand(ctx context.Context, key string, pl place, replyTo int) {
	rec, _, err := b.store.Session(key)
	if err != nil {
		b.notify(pl, replyTo, "Could not read the sessions: "+b.redact(err.Error()))
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

// pressSession makes the chosen earlier session current: the live process
// is closed and the next message resumes the chosen one, in its directory.
func (b *Bot) pressSession(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	c, ok := b.sessions.get(tok)
	ok = ok && time.Since(c.created) <= sessionTokenLife
	switch {
	case !b.userAllowed(cq.From.ID):
		b.answerCallback(ctx, cq.ID, "You are not allowed to do this")
		return
	case !ok:
		b.answerCallback(ctx, cq.ID, "This list is out of date: send /sessions again")
		return
	case c.chatID != chatID:
		b.answerCallback(ctx, cq.ID, "This button belongs to another chat")
		return
	}
	a := b.existingActor(c.key)
	if a != nil && a.working() {
		b.answerCallback(ctx, cq.ID, "A turn is running or queued: try again when it is over")
		return
	}
	dir := ""
	if c.past.WorkDir != "" && c.past.WorkDir != b.cfg.WorkDir {
		resolved, err := b.resolveWorkDir(b.cfg.WorkDir, c.past.WorkDir)
		if err != nil {
			b.answerCallback(ctx, cq.ID, "Its directory is no longer allowed or gone")
			return
		}
		dir = resolved
	}
	err := b.store.SetWorkDir(c.key, dir)
	if err == nil {
		err = b.store.StartSession(c.key, c.past.ID, c.past.Title, c.past.WorkDir)
	}
	if err != nil {
		b.log.Warn("could not switch sessions", "chat_id", chatID, "session_id", c.past.ID, "err", err)
		b.answerCallback(ctx, cq.ID, "Could not switch: see the bot's log")
		return
	}
	// One was used; the others describe a history that just changed.
	b.sessions.removeIf(func(o sessionChoice) bool { return o.key == c.key })
	if a != nil {
		a.restartAfterTurn() // the next turn starts a process resuming the chosen id
	}
	b.answerCallback(ctx, cq.ID, "Switched")
	if m := cq.Message.Message; m != nil {
		item := view.SessionItem{Title: c.past.Title, WorkDir: c.past.WorkDir}
		_ = b.edit(ctx, chatID, m.ID, view.SessionSwitched(item, displayName(&cq.From)), nil, outbox.High, "", nil)
	}
}
