package telegram

import (
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/view"
)

// handleEdit applies an edited message to its prompt while it waits in the
// queue, and otherwise tells the user the edit changes nothing: a silent
// edit would leave them believing Claude got the new text.
func (b *Bot) handleEdit(updateID int64, m *models.Message) {
	if m.From == nil || m.From.IsBot || !b.allow.user(m.From.ID) {
		return // nothing to do, nothing written
	}
	if _, fresh := b.accept(updateID, "", nil); !fresh {
		return
	}
	group := isGroup(m.Chat.ID)
	if !b.allow.chat(m.Chat.ID) {
		return
	}
	text, cmd, _, addressed := b.parseText(m)
	if (group && !addressed) || cmd != "" || text == "" {
		return // not a prompt: nothing was run from it
	}
	key, pl := sessionKey(m)
	// After what the session's lane still holds: the edited prompt may be
	// waiting there to reach its actor.
	b.lanes.inOrder(key, func() {
		switch b.existingActor(key).edit(m.ID, text) {
		case editApplied:
			b.api.notify(pl, m.ID, view.EditApplied)
		case editRunning:
			b.api.notify(pl, m.ID, view.EditRunning)
		default:
			b.api.notify(pl, m.ID, view.EditTooLate)
		}
	})
}

type editResult int

const (
	editTooLate editResult = iota
	editApplied
	editRunning
)

// edit replaces the text of the queued prompt of message msgID, in memory
// and in the store. A nil actor has nothing queued.
func (a *actor) edit(msgID int, text string) editResult {
	if a == nil {
		return editTooLate
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.turn; t != nil && t.qp.MessageID == msgID {
		if t.answered.Load() {
			return editTooLate
		}
		return editRunning
	}
	for i := range a.queue {
		qp := &a.queue[i]
		if qp.MessageID != msgID {
			continue
		}
		found, err := a.b.store.EditPrompt(a.key, qp.Seq, text)
		if err != nil {
			a.b.log.Warn("could not store an edited prompt", "chat_id", a.place.ChatID, "err", err)
			return editTooLate
		}
		if found {
			qp.Text = text
			return editApplied
		}
	}
	return editTooLate
}
