package telegram

import (
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
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
		switch b.core.Edit(key, m.ID, text) {
		case chat.EditApplied:
			b.api.notify(pl, m.ID, view.EditApplied)
		case chat.EditRunning:
			b.api.notify(pl, m.ID, view.EditRunning)
		default:
			b.api.notify(pl, m.ID, view.EditTooLate)
		}
	})
}
