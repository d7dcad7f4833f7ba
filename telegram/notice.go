package telegram

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// A notice that has an outcome ("Cancelling…", then "⏹ Cancelled…") is
// one message, edited to its outcome, not two: every message counts in
// the chat's window (three in three seconds), and the answer after a
// /cancel should not wait for it. The text is chosen when the send runs,
// so an outcome known by then goes out as the only text, unedited.

// notice is one such message.
type notice struct {
	api     *tgAPI
	p       place
	replyTo int

	mu   sync.Mutex
	text string        // what the message should read
	kb   view.Keyboard // its buttons until its text is set ("⚡ Send now")
	id   int           // the message, once sent
	// ahead: a "Queued" note's count, 0 once its text is an outcome
	// (steercount.go).
	ahead int

	queued bool // a "Queued" note that was sent (surface.mu guards it)
}

// newNotice prepares a notice; start sends it.
func (api *tgAPI) newNotice(p place, replyTo int) *notice {
	return &notice{api: api, p: p, replyTo: replyTo}
}

// start sends the notice reading text, unless its outcome was set first
// (then the outcome is all it ever reads). It does not wait.
func (n *notice) start(text string) {
	n.mu.Lock()
	if n.text == "" {
		n.text = text
	}
	n.mu.Unlock()
	api := n.api
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			n.mu.Lock()
			text, kb := api.redact(n.text), n.kb
			n.mu.Unlock()
			m, err := api.client.SendMessage(ctx, api.sendParams(n.p, n.replyTo, text, kb, parse))
			if err != nil {
				return api.wrap("sendMessage", err)
			}
			n.sent(m.ID, text)
			return nil
		}
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := api.sendParsed(ctx, n.p.ChatID, outbox.Normal, do); err != nil && !errors.Is(err, outbox.ErrClosed) {
			api.log.Warn("could not send a notice", "chat_id", n.p.ChatID, "err", err)
		}
	}()
}

// sent records the message; an outcome set while it was on its way is
// shown by an edit now.
func (n *notice) sent(id int, text string) {
	n.mu.Lock()
	n.id = id
	later := n.text
	n.mu.Unlock()
	if n.api.redact(later) != text {
		n.edit(later)
	}
}

// set changes what the notice reads: before it is sent, the text it will
// be sent with; after, an edit.
func (n *notice) set(text string) {
	n.mu.Lock()
	n.text, n.kb, n.ahead = text, nil, 0 // an edit without buttons takes them away
	id := n.id
	n.mu.Unlock()
	if id != 0 {
		n.edit(text)
	}
}

// edit shows text; a newer edit of the notice supersedes one still queued.
func (n *notice) edit(text string) {
	n.mu.Lock()
	id, kb := n.id, n.kb // an outcome has none (set); a recount keeps Send now
	n.mu.Unlock()
	key := "notice:" + strconv.FormatInt(n.p.ChatID, 10) + ":" + strconv.Itoa(id)
	_ = n.api.edit(context.Background(), n.p.ChatID, id, text, kb, outbox.Normal, key, func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) && !errors.Is(err, outbox.ErrSuperseded) {
			n.api.log.Warn("could not edit a notice to its outcome", "chat_id", n.p.ChatID, "err", err)
		}
	})
}

// A turn's notices: the replies to /cancel (and /new) that wait for the
// turn to end, to read its outcome instead of it coming as a message of
// its own.

// turnNotice is a notice waiting for a turn; outcome gives what it reads
// once the turn ends ("" leaves it as it is): text is the turn's own
// outcome, cancelled whether the cancel took effect.
type turnNotice struct {
	n       *notice
	outcome func(text string, cancelled bool) string
}

// addNotice has n read the turn's outcome.
func (t *tgTurn) addNotice(n *notice, outcome func(text string, cancelled bool) string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.notices = append(t.notices, turnNotice{n, outcome})
}

// settleNotices gives each waiting notice the turn's outcome and reports
// whether there was one.
func (t *tgTurn) settleNotices(text string, cancelled bool) bool {
	t.mu.Lock()
	ns := t.notices
	t.notices = nil
	t.mu.Unlock()
	for _, tn := range ns {
		if s := tn.outcome(text, cancelled); s != "" {
			tn.n.set(s)
		}
	}
	return len(ns) > 0
}

// deliverCancelled ends a cancelled turn with text: the notices of the
// commands that cancelled it show it, or, without one (the Cancel button
// was pressed), it is a message of its own.
func (t *tgTurn) deliverCancelled(ctx context.Context, text string) {
	t.live.stop()
	if !t.settleNotices(text, true) {
		t.deliver(ctx, []string{text})
	}
}

// cancelOutcome is what a /cancel reply reads once its turn ended: the
// turn's cancelled text, or, when the turn ended another way first, that
// there was nothing left to cancel.
func cancelOutcome(text string, cancelled bool) string {
	if cancelled {
		return text
	}
	return view.CancelTooLate
}

// leaveNotice leaves a notice as it reads: the reply to /new says all there
// is to say about the turn it cancelled.
func leaveNotice(string, bool) string { return "" }

// adopt edits a delivered notice into text and kb and returns its id, for
// the caller to own from then on (a queued prompt's notice becoming its
// turn's progress message); 0 when there is none yet (nil, not delivered,
// or the edit failed): the caller sends a message of its own.
func (n *notice) adopt(ctx context.Context, text string, kb view.Keyboard) int {
	if n == nil {
		return 0
	}
	n.mu.Lock()
	id := n.id
	n.mu.Unlock()
	if id == 0 {
		return 0
	}
	if err := n.api.edit(ctx, n.p.ChatID, id, text, kb, outbox.Normal, "", nil); err != nil {
		n.api.log.Debug("could not turn a notice into the progress message", "chat_id", n.p.ChatID, "err", err)
		return 0
	}
	return id
}

// waitNotice says why the turn waits (a Claude slot) in the prompt's one
// notice: the "Queued" one edited, or a new one that the progress message
// takes over in turn. It runs on the actor's goroutine, like sendProgress.
func (t *tgTurn) waitNotice(text string) {
	if t.queuedNote == nil {
		t.queuedNote = t.b.api.newNotice(t.place, t.msgID)
		t.queuedNote.start(text)
		return
	}
	t.queuedNote.set(text)
}
