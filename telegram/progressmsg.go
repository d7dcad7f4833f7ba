package telegram

import (
	"context"
	"strconv"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// The turn's progress message: sent once the turn has run a while
// (sendProgress), its view, and its edits, paced (schedule, flush).

func (t *tgTurn) gotProgress(id int) {
	t.progressID, t.progressGot = id, true
	if id == 0 {
		return
	}
	// No edit follows the send within the interval, and the draft the
	// new message took off the screen comes back.
	t.lastEdit = time.Now()
	t.live.invalidate()
	b := t.b
	err := b.store.MoveLive(t.place.ChatID, t.msgID, prefs.LiveMessage{Kind: prefs.LiveProgress, ChatID: t.place.ChatID,
		MessageID: id, ThreadID: t.place.Thread, SessionKey: t.key, Created: time.Now()})
	if err != nil {
		b.log.Warn("could not record the progress message", "chat_id", t.place.ChatID, "err", err)
	}
}

// awaitProgress makes sure the progress message exists before a prompt
// replies to it: it carries Cancel and says the turn waits. An
// auto-approved request sends none; a prompt waits one call for it.
func (t *tgTurn) awaitProgress(ctx context.Context) {
	if t.progressGot {
		return
	}
	t.sendProgress(ctx)
	select {
	case id := <-t.progressCh:
		t.gotProgress(id)
	case <-t.b.stopping:
	}
}

// sendProgress sends the progress message, once; its id comes on
// progressCh, and wakes the turn.
func (t *tgTurn) sendProgress(ctx context.Context) {
	if t.progressSent {
		return
	}
	t.progressSent = true
	b, progress := t.b, t.progressCh
	text := t.render()
	t.rendered = text
	t.dirty = false
	kb := view.ProgressKeyboard(cancelData(t.cancelT))
	note := t.queuedNote
	go func() {
		defer signal(t.wake)
		if id := note.adopt(ctx, text, kb); id != 0 {
			progress <- id // the queued notice, edited into the progress message
			return
		}
		id, err := b.api.send(ctx, t.place, t.msgID, text, kb, outbox.Normal)
		if err != nil {
			b.log.Warn("could not send progress message", "chat_id", t.place.ChatID, "err", err)
		}
		progress <- id
	}()
}

func (t *tgTurn) view() view.Progress {
	s := t.info.Snapshot()
	var limit *view.Limit
	if s.Limit != nil {
		l := view.LimitOf(*s.Limit, time.Now())
		limit = &l
	}
	return view.Progress{
		State: view.PhaseState(s.Phase), Elapsed: time.Since(s.Started), Steps: len(s.Actions), Actions: s.Actions,
		MaxActions: t.b.cfg.MaxActions, Verbose: s.Verbose, Model: s.Model, PermissionMode: s.Mode,
		LastText: s.LastText, Queued: s.Queued, Streaming: t.streaming(s.Stream),
		Limit: limit, Retry: s.Retry, Compaction: s.Compaction, Stall: s.Stall,
	}
}

func (t *tgTurn) render() string { return view.ProgressText(t.view()) }

func (t *tgTurn) interval() time.Duration {
	if isGroup(t.place.ChatID) {
		return t.b.cfg.GroupEdit
	}
	return t.b.cfg.MinEdit
}

// schedule arms the edit timer so that a dirty view is edited no sooner
// than one interval after the previous edit (latest state wins).
func (t *tgTurn) schedule() {
	if !t.dirty || t.progressID == 0 || t.editT == nil {
		return
	}
	wait := t.interval() - time.Since(t.lastEdit)
	if hold := t.draftHold(); hold > wait {
		wait = hold
	}
	if wait < 0 {
		wait = 0
	}
	t.editAt = time.Now().Add(wait)
	t.editT.Reset(wait)
}

func (t *tgTurn) progressKey() string {
	return "p:" + strconv.FormatInt(t.place.ChatID, 10) + ":" + strconv.Itoa(t.progressID)
}

func (t *tgTurn) flush() {
	if !t.dirty || t.progressID == 0 || t.draftHold() > 0 {
		return
	}
	t.dirty = false
	text := t.render()
	if text == t.rendered {
		return
	}
	t.rendered = text
	t.lastEdit = time.Now()
	kb := view.ProgressKeyboard(cancelData(t.cancelT))
	_ = t.b.api.edit(context.Background(), t.place.ChatID, t.progressID, text, kb, outbox.Low, t.progressKey(), nil)
}
