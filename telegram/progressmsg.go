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

func (t *turn) gotProgress(id int) {
	t.progressID, t.progressGot = id, true
	if id == 0 {
		return
	}
	// No edit follows the send within the interval, and the draft the
	// new message took off the screen comes back.
	t.lastEdit = time.Now()
	t.live.invalidate()
	a := t.a
	err := a.b.store.MoveLive(a.place.ChatID, t.qp.MessageID, prefs.LiveMessage{Kind: prefs.LiveProgress, ChatID: a.place.ChatID,
		MessageID: id, ThreadID: a.place.Thread, SessionKey: a.key, Created: time.Now()})
	if err != nil {
		a.b.log.Warn("could not record the progress message", "chat_id", a.place.ChatID, "err", err)
	}
}

// awaitProgress makes sure the progress message exists before a prompt
// replies to it: it carries Cancel and says the turn waits. An
// auto-approved request sends none; a prompt waits one call for it.
func (t *turn) awaitProgress(ctx context.Context) {
	if t.progressGot {
		return
	}
	t.sendProgress(ctx, t.progressCh)
	select {
	case id := <-t.progressCh:
		t.gotProgress(id)
	case <-t.a.quit:
	}
}

// sendProgress sends the progress message, once; its id comes on
// progress.
func (t *turn) sendProgress(ctx context.Context, progress chan int) {
	if t.progressSent || progress == nil {
		return
	}
	t.progressSent = true
	a, b := t.a, t.a.b
	text := t.render()
	t.rendered = text
	t.dirty = false
	kb := view.ProgressKeyboard(cancelData(t.cancelT))
	note := t.queuedNote
	go func() {
		if id := note.adopt(ctx, text, kb); id != 0 {
			progress <- id // the queued notice, edited into the progress message
			return
		}
		id, err := b.api.send(ctx, a.place, t.qp.MessageID, text, kb, outbox.Normal)
		if err != nil {
			b.log.Warn("could not send progress message", "chat_id", a.place.ChatID, "err", err)
		}
		progress <- id
	}()
}

func (t *turn) view() view.Progress {
	a := t.a
	st := a.b.settings(a.key)
	a.mu.Lock()
	model, mode := a.model, a.mode
	a.mu.Unlock()
	if model == "" {
		model = st.Model
	}
	t.mu.Lock()
	queued := t.queued
	t.mu.Unlock()
	return view.Progress{
		State: view.PhaseState(t.st.Phase), Elapsed: time.Since(t.started), Steps: len(t.st.Actions), Actions: t.st.Actions,
		MaxActions: a.b.cfg.MaxActions, Verbose: st.Verbose, Model: model, PermissionMode: mode,
		LastText: t.st.LastText, Queued: queued, Streaming: t.streaming(),
		Limit: t.limitNote(), Retry: t.st.Retry, Compaction: t.st.Compaction, Stall: t.stallNote(),
	}
}

func (t *turn) render() string { return view.ProgressText(t.view()) }

func (t *turn) interval() time.Duration {
	if t.a.group {
		return t.a.b.cfg.GroupEdit
	}
	return t.a.b.cfg.MinEdit
}

// schedule arms the edit timer so that a dirty view is edited no sooner
// than one interval after the previous edit (latest state wins).
func (t *turn) schedule(timer *time.Timer) {
	if !t.dirty || t.progressID == 0 {
		return
	}
	wait := t.interval() - time.Since(t.lastEdit)
	if hold := t.draftHold(); hold > wait {
		wait = hold
	}
	if wait < 0 {
		wait = 0
	}
	timer.Reset(wait)
}

func (t *turn) progressKey() string {
	return "p:" + strconv.FormatInt(t.a.place.ChatID, 10) + ":" + strconv.Itoa(t.progressID)
}

func (t *turn) flush() {
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
	_ = t.a.b.api.edit(context.Background(), t.a.place.ChatID, t.progressID, text, kb, outbox.Low, t.progressKey(), nil)
}
