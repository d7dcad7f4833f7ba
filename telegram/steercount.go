package telegram

import (
	"context"
	"errors"
	"strconv"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// A message taken into the running turn leaves the queue: the "Queued"
// notes of the messages behind it count one fewer ahead. Only the notes
// it changes are edited, at low priority: a count is worth less than any
// answer.

// behind lists the notices of chat pl's messages queued after msgID
// (message ids grow in a chat as its messages arrive); s.mu held.
func (s *surface) behind(pl place, msgID int) []*notice {
	var out []*notice
	for id, n := range s.notes[pl] {
		if id > msgID {
			out = append(out, n)
		}
	}
	return out
}

// queuedText is what a "Queued" note reads now.
func (n *notice) queuedText() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return view.QueuedNote(n.ahead)
}

// oneAheadFewer counts one message fewer ahead of a "Queued" note: one
// not sent yet is sent with the new count, one sent is edited, its
// buttons kept; one that says an outcome stays as it is.
func (n *notice) oneAheadFewer() {
	n.mu.Lock()
	if n.ahead <= 1 { // an outcome, or the running turn alone is ahead
		n.mu.Unlock()
		return
	}
	n.ahead--
	text, kb, id := view.QueuedNote(n.ahead), n.kb, n.id
	if n.text != "" {
		n.text = text
	}
	n.mu.Unlock()
	if id == 0 {
		return // its send reads the text when it goes (start)
	}
	key := "notice:" + strconv.FormatInt(n.p.ChatID, 10) + ":" + strconv.Itoa(id)
	_ = n.api.edit(context.Background(), n.p.ChatID, id, text, kb, outbox.Low, key, func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) && !errors.Is(err, outbox.ErrSuperseded) {
			n.api.log.Warn("could not recount a queued note", "chat_id", n.p.ChatID, "err", err)
		}
	})
}
