package control

import (
	"log/slog"

	"github.com/untether/untether/chat"
)

// Stop answers stopped_message_generation (Bot API 10.3): the user pressed
// stop on a turn's streamed draft. It stops that turn like /cancel; the
// turn's surface then keeps what was written as a message. The update
// names no user: a draft goes to a private chat only, whose id is its
// user's, so Allowed checks the chat.
type Stop struct {
	Core *chat.Core
	// Allowed says whether the private chat's user may cancel turns.
	Allowed func(chatID int64) bool
	Log     *slog.Logger
}

// Stoppable is a turn's surface that streams drafts: StopDraft says
// whether draftID is the draft it shows, and if so marks it stopped.
type Stoppable interface {
	StopDraft(draftID int64) bool
}

// Stopped stops the turn of conversation key in chat p whose draft
// draftID was stopped, and reports whether it did. A stop from a chat that
// may not cancel, of a draft no running turn shows (a stale one) or of a
// turn that already answered changes nothing.
func (s Stop) Stopped(key string, p chat.Place, draftID int64) bool {
	if !s.Allowed(p.ChatID) {
		s.Log.Info("ignored a stopped draft in a chat that may not cancel", "chat_id", p.ChatID)
		return false
	}
	ok := s.Core.CancelIf(key, func(v chat.TurnSurface) bool {
		st, ok := v.(Stoppable)
		return ok && st.StopDraft(draftID)
	})
	if !ok {
		s.Log.Info("a stopped draft no running turn shows: nothing to stop", "chat_id", p.ChatID, "session_key", key, "draft_id", draftID)
	}
	return ok
}
