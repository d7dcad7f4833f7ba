package telegram

import (
	"context"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// /sessions: the Claude Code sessions of the chat's directory, read from
// Claude Code's own store (so sessions started in a terminal are there
// too), and the chat's earlier sessions elsewhere; a tap resumes one.

// maxListed bounds the store's sessions /sessions shows.
const maxListed = 10

// inUseWindow: a session file written this recently by a process other
// than the bot's may be open in a terminal; resuming it asks first.
const inUseWindow = 10 * time.Second

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
	if past := b.core.MachineFor(key).PastStore(); past != nil {
		list.Dir = dir
		here, err := past.ListSessions(ctx, dir, maxListed+1)
		if err != nil {
			b.log.Warn("could not read Claude Code's sessions", "chat_id", pl.ChatID, "session_key", key, "err", err)
		}
		mine, others := b.sessionOwners(key, rec)
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

// sessionOwners are the session ids the bot knows: this chat's (with
// their titles) and other chats' and topics', which this chat's list
// leaves out.
func (b *Bot) sessionOwners(key string, rec prefs.SessionRecord) (mine map[string]string, others map[string]bool) {
	mine, others = map[string]string{}, map[string]bool{}
	if rec.SessionID != "" {
		mine[rec.SessionID] = rec.Title
	}
	for _, p := range rec.History {
		mine[p.ID] = p.Title
	}
	keys, err := b.store.KnownChats()
	if err != nil {
		b.log.Warn("could not list the chats", "err", err)
	}
	for _, k := range keys {
		if k == key {
			continue
		}
		r, _, err := b.store.Session(k)
		if err != nil {
			continue
		}
		if r.SessionID != "" {
			others[r.SessionID] = true
		}
		for _, p := range r.History {
			others[p.ID] = true
		}
	}
	return mine, others
}

// inUseElsewhere tells a session whose file was written moments ago by a
// process that is not one of the bot's own: a Claude Code in a terminal,
// most likely. A time in the future counts as recent.
func (b *Bot) inUseElsewhere(key string, p prefs.PastSession) (age time.Duration, inUse bool) {
	m := b.core.MachineFor(key)
	past := m.PastStore()
	if past == nil {
		return 0, false
	}
	dir := p.WorkDir
	if dir == "" {
		dir = m.WorkDir
	}
	s, ok := past.StatSession(dir, p.ID)
	if !ok {
		return 0, false
	}
	age = time.Since(s.Modified)
	if age >= inUseWindow || b.liveSession(p.ID) {
		return age, false
	}
	return max(age, 0), true
}

// startedElsewhere tells a session that the store files under its
// directory but that started in another one whose name encodes alike
// (engine.PastSession.BelongsTo): /sessions does not list those, and a tap
// on one listed before its file changed does not resume it. A session
// the store does not have is not refused here: resuming it falls back to
// a fresh one.
func (b *Bot) startedElsewhere(ctx context.Context, key string, p prefs.PastSession) bool {
	m := b.core.MachineFor(key)
	past := m.PastStore()
	if past == nil {
		return false
	}
	dir := p.WorkDir
	if dir == "" {
		dir = m.WorkDir
	}
	if _, ok := past.StatSession(dir, p.ID); !ok {
		return false
	}
	s, err := past.ReadSession(ctx, dir, p.ID)
	return err != nil || !s.BelongsTo(dir)
}

// liveSession says whether one of the bot's own processes has session id.
func (b *Bot) liveSession(id string) bool { return b.core.LiveSession(id) }

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
