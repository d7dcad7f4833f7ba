package telegram

import (
	"strconv"
	"sync"

	"github.com/untether/untether/telegram/view"
)

// promptBook tracks the message of every pending request's prompt, by
// session key and request id. A request can be resolved (a quick press, a
// timeout, a cancel) or move on (a question) before its message is sent;
// the book keeps that until the sender records the message.
//
// Presses are handled concurrently, so their edits could reach the outbox
// in another order than the states they show. Every edit of a prompt is
// therefore queued while the book's lock is held, after checking that its
// state is newer than the last one queued, under one outbox key per message
// (a newer edit replaces a queued older one): a prompt always ends up
// showing its latest state.
type promptBook struct {
	mu sync.Mutex
	m  map[promptKey]*promptEntry
	// edit queues an edit of a prompt message; it must not block.
	edit func(ref promptRef, text string, kb view.Keyboard)
}

type promptKey struct{ session, request string }

// promptRef is the message that shows a prompt: its last part, which
// carries the buttons. The book is the only record of it (approvals knows
// requests, not messages).
type promptRef struct {
	ChatID    int64
	MessageID int
}

type promptEntry struct {
	ref       promptRef     // zero until the message is sent
	text      string        // the HTML it shows (for a plan, its last part)
	kb        view.Keyboard // with update: the keyboard to show
	version   int           // of the question state shown or waiting
	update    bool          // a newer state waits for the message
	outcome   *view.Outcome // resolved before the message was sent
	abandoned bool          // the message could not be sent
}

// promptEditKey names a prompt message's edits in the outbox.
func promptEditKey(ref promptRef) string {
	return "prompt:" + strconv.FormatInt(ref.ChatID, 10) + ":" + strconv.Itoa(ref.MessageID)
}

func (pb *promptBook) entry(k promptKey) *promptEntry {
	if pb.m == nil {
		pb.m = map[promptKey]*promptEntry{}
	}
	e := pb.m[k]
	if e == nil {
		e = &promptEntry{}
		pb.m[k] = e
	}
	return e
}

// shown records the sent message and brings it up to date with what
// happened meanwhile. finished says the request was resolved already: the
// outcome is shown and the entry is gone.
func (pb *promptBook) shown(k promptKey, ref promptRef, text string) (finished bool) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	e := pb.entry(k)
	e.ref = ref
	if !e.update {
		e.text = text
	}
	if e.outcome != nil {
		delete(pb.m, k)
		pb.edit(ref, view.OutcomeText(e.text, *e.outcome), nil)
		return true
	}
	if e.update {
		pb.edit(ref, e.text, e.kb)
		e.update, e.kb = false, nil
	}
	return false
}

// update records a newer state of a question (version increases with
// every state); an older one, late from a concurrent press, is ignored.
func (pb *promptBook) update(k promptKey, version int, text string, kb view.Keyboard) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	e := pb.entry(k)
	if version <= e.version || e.outcome != nil {
		return
	}
	e.version, e.text = version, text
	if e.ref.MessageID == 0 {
		e.update, e.kb = true, kb
		return
	}
	pb.edit(e.ref, text, kb)
}

// resolve shows the outcome, or keeps it for shown when the message is not
// sent yet. ok says the message exists and was edited: the caller forgets
// its record.
func (pb *promptBook) resolve(k promptKey, o view.Outcome) (promptRef, bool) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	e := pb.entry(k)
	if e.ref.MessageID == 0 && !e.abandoned {
		e.outcome = &o
		return promptRef{}, false
	}
	delete(pb.m, k)
	if e.abandoned {
		return promptRef{}, false
	}
	pb.edit(e.ref, view.OutcomeText(e.text, o), nil)
	return e.ref, true
}

// abandon forgets a prompt whose message could not be sent.
func (pb *promptBook) abandon(k promptKey) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	e := pb.entry(k)
	if e.outcome != nil {
		delete(pb.m, k)
		return
	}
	e.abandoned = true
}
