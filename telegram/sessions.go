package telegram

import (
	"context"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// /sessions: the sessions of the chat's directory, read from its engine's
// own store (Claude Code's or Codex's: so sessions started in a terminal
// are there too), and the chat's earlier sessions elsewhere; a tap resumes one.

// maxListed bounds the store's sessions /sessions shows.
const maxListed = 10

// sessionsCommand lists the chat's sessions with a button for each one it
// can go to.
func (b *Bot) sessionsCommand(ctx context.Context, key string, pl place, replyTo int) {
	// Checked before the session is read: a fallback sets it aside.
	dir := b.chatDir(key, pl, replyTo)
	rec, _, err := b.store.Session(key)
	if err != nil {
		b.api.notify(pl, replyTo, view.SessionsUnreadable(b.redact(err.Error())))
		return
	}
	now := time.Now()
	list := view.Sessions{Now: now}
	if rec.SessionID != "" {
		list.Current = &view.SessionItem{Title: b.redact(rec.Title), WorkDir: rec.WorkDir, When: rec.Started}
	}
	// Lists nobody used are forgotten after an hour.
	b.sessions.removeIf(func(c sessionChoice) bool { return now.Sub(c.created) > sessionTokenLife })
	choose := func(p prefs.PastSession) string {
		return prefixSession + b.sessions.add(sessionChoice{key: key, chatID: pl.ChatID, thread: pl.Thread, past: p, created: now})
	}
	shown := map[string]bool{rec.SessionID: true}
	m := b.core.MachineFor(key)
	if past := m.PastStore(); past != nil {
		list.Dir, list.Engine = dir, m.EngineName
		here, err := past.ListSessions(ctx, dir, maxListed+1)
		if err != nil {
			b.log.Warn("could not read the engine's sessions", "engine", m.EngineName, "chat_id", pl.ChatID, "session_key", key, "err", err)
		}
		mine, others := b.core.SessionOwners(key, rec)
		for _, s := range here {
			if shown[s.ID] || others[s.ID] || len(list.Here) == maxListed {
				continue // the current one; another chat's (chats never see each other's)
			}
			shown[s.ID] = true
			title, own := mine[s.ID]
			if !own {
				title = s.FirstPrompt
			}
			p := prefs.PastSession{ID: s.ID, Title: title, WorkDir: dir, Ended: s.Modified}
			list.Here = append(list.Here, view.SessionItem{Title: b.redact(title), When: s.Modified, Turns: s.Turns, Outside: !own, Data: choose(p)})
		}
	}
	for _, p := range rec.History {
		if shown[p.ID] {
			continue
		}
		list.Earlier = append(list.Earlier, view.SessionItem{Title: b.redact(p.Title), WorkDir: p.WorkDir, When: p.Ended, Data: choose(p)})
	}
	// Sent from the session's lane: what the chat sends next waits for it.
	if _, err := b.api.send(ctx, pl, replyTo, view.SessionsText(list), view.SessionsKeyboard(list.Items()), outbox.Normal); err != nil {
		b.log.Warn("could not send the session list", "chat_id", pl.ChatID, "err", err)
	}
}

// askInUse answers a tap on a session that may be open elsewhere with a
// warning and two buttons: resume anyway, or keep the chat as it is.
func (b *Bot) askInUse(ctx context.Context, cq *models.CallbackQuery, c sessionChoice, age time.Duration) {
	yes, no := c, c
	yes.force, no.cancel = true, true
	yes.created, no.created = time.Now(), time.Now()
	kb := view.SessionInUseKeyboard(prefixSession+b.sessions.add(yes), prefixSession+b.sessions.add(no))
	replyTo := 0
	if m := cq.Message.Message; m != nil {
		replyTo = m.ID
	}
	item := view.SessionItem{Title: b.redact(c.past.Title)}
	b.api.answerCallback(ctx, cq.ID, view.ToastSessionInUse)
	if _, err := b.api.send(ctx, place{ChatID: c.chatID, Thread: c.thread}, replyTo, view.SessionInUse(item, view.Ago(age)), kb, outbox.High); err != nil {
		b.log.Warn("could not send the session warning", "chat_id", c.chatID, "err", err)
	}
}
