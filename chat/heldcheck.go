package chat

import (
	"context"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// A held Claude a restarted bot attached to (reattach, retryDeferred) is
// not taken on trust: the config may have changed while the bot was down.
// It goes on only if it passes what a new turn and a session start would:
// its chat and the user of its turn still allowed (Access.Held, as mayRun
// asks), and its directory where a session start would put the chat
// (checkedWorkDir, with the same notice and fallback). One that fails is
// ended as /new ends a process: its holder tells Claude to exit.

// heldEndWait bounds the end of a held Claude this bot will not carry on
// (an interrupt of its turn, stdin closed, then the runner's signals).
const heldEndWait = 10 * time.Second

// vetHeld checks a held Claude conn attached to on m. It returns the
// directory it may go on in (its send_file grant is made for that one),
// or, when it was ended (ok false), why.
func (b *Core) vetHeld(conn engine.Conn, m *Machine, rec prefs.HeldSession) (dir string, stopped HeldEnd, ok bool) {
	if chatOK, userOK := b.access.Held(rec); !chatOK || !userOK {
		var user int64
		if rec.Turn != nil {
			user = rec.Turn.UserID
		}
		b.log.Warn("a held claude process was ended: its chat or user is no longer allowed", "chat_id", rec.ChatID,
			"session_key", rec.Key, "user_id", user, "chat_allowed", chatOK)
		b.endHeld(conn, rec)
		if !chatOK {
			return "", HeldChatRefused, false
		}
		return "", HeldUserRefused, false
	}
	dir, ok = b.heldDir(m, rec)
	if !ok {
		b.log.Warn("a held claude process was ended: its directory is not where a session would start", "chat_id", rec.ChatID,
			"session_key", rec.Key, "work_dir", rec.WorkDir)
		b.endHeld(conn, rec)
		return "", HeldDirRefused, false
	}
	return dir, 0, true
}

// heldDir checks the directory of a held Claude as a session start checks
// the chat's: the chat's own directory by checkedWorkDir (one that fails
// sends the chat back to working_dir with the notice, its session set
// aside), and the directory the process works in must be inside the roots
// as it is today, links resolved to itself (the checked path is returned).
func (b *Core) heldDir(m *Machine, rec prefs.HeldSession) (string, bool) {
	replyTo := 0
	if rec.Turn != nil {
		replyTo = rec.Turn.MessageID
	}
	fellBack := false
	b.checkedWorkDir(rec.Key, Place{ChatID: rec.ChatID, Thread: rec.ThreadID}, replyTo, func() {
		fellBack = true
		b.SetAside(rec.Key)
	})
	v := m.InRoots(rec.WorkDir, m.Roots())
	return v.Path, !fellBack && v.Inside && v.Path == rec.WorkDir
}

// endHeld ends a held Claude this bot will not carry on, and forgets it.
// Claude is told to exit through its holder, as /new ends a process (its
// turn interrupted first); start-up does not wait for it.
func (b *Core) endHeld(conn engine.Conn, rec prefs.HeldSession) {
	if err := b.store.RemoveHeld(rec.Key); err != nil {
		b.log.Warn("could not forget a held claude process", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		go func() { // read what it says meanwhile, so that its interrupt is answered
			for range conn.Events() {
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), heldEndWait)
		defer cancel()
		if err := conn.Close(ctx); err != nil {
			b.log.Warn("closing a held claude process failed", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
		}
	}()
}
