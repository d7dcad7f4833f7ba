package chat

import (
	"context"
	"time"

	"github.com/untether/untether/prefs"
)

// The conversation's past sessions, for a frontend's /sessions: whose they
// are, and whether one may be open elsewhere (a terminal) or belong to
// another directory.

// inUseWindow: a session file written this recently by a process other
// than the bot's may be open in a terminal; resuming it asks first.
const inUseWindow = 10 * time.Second

// SessionOwners are the session ids the bot knows: this chat's (with
// their titles) and other chats' and topics', which this chat's list
// leaves out.
func (b *Core) SessionOwners(key string, rec prefs.SessionRecord) (mine map[string]string, others map[string]bool) {
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

// InUseElsewhere tells a session whose file was written moments ago by a
// process that is not one of the bot's own: a Claude Code in a terminal,
// most likely. A time in the future counts as recent.
func (b *Core) InUseElsewhere(key string, p prefs.PastSession) (age time.Duration, inUse bool) {
	m := b.MachineFor(key)
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
	if age >= inUseWindow || b.LiveSession(p.ID) {
		return age, false
	}
	return max(age, 0), true
}

// StartedElsewhere tells a session that the store files under its
// directory but that started in another one whose name encodes alike
// (engine.PastSession.BelongsTo): /sessions does not list those, and a tap
// on one listed before its file changed does not resume it. A session
// the store does not have is not refused here: resuming it falls back to
// a fresh one.
func (b *Core) StartedElsewhere(ctx context.Context, key string, p prefs.PastSession) bool {
	m := b.MachineFor(key)
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
