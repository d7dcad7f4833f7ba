package telegram

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/contain"
	"github.com/untether/untether/telegram/view"
)

// An update the bot cannot decode costs that update alone (contain.Decode
// and contain.ReadUnreadable read what it still tells): one that fails is
// logged, skipped and, when its sender may use the bot, answered with one
// line.

// skipUnreadable handles an update contain.Decode refused (err). It returns the
// update's id, or false when even that cannot be read. A message or edit is
// answered when its sender and chat pass the checks a message passes; a
// stranger's counts as one of theirs (no answer, the log line within their
// budget). Nothing of its content is logged: its id, its keys, and where
// decoding failed.
func (b *Bot) skipUnreadable(raw json.RawMessage, err error) (int64, bool) {
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(raw, &fields) // the batch parsed: raw is valid JSON, perhaps not an object
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var id int64
	if json.Unmarshal(fields["update_id"], &id) != nil || id == 0 {
		b.log.Warn("skipped an update without a readable update_id", "keys", keys)
		return 0, false
	}
	if handled, err := b.store.Handled(id); err == nil && handled {
		return id, true // redelivered after a restart: logged and answered then
	}
	var m *models.Message
	if payload := fields["message"]; payload != nil {
		m = contain.ReadUnreadable(payload)
	} else if payload := fields["edited_message"]; payload != nil {
		m = contain.ReadUnreadable(payload)
	}
	logIt := true
	if m != nil && !m.From.IsBot && !b.allow.user(m.From.ID) {
		logIt = b.accounts.Stranger(m.From.ID, time.Now())
	}
	if logIt {
		var where string
		if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
			where = te.Field
		}
		b.log.Warn("skipped an update that could not be decoded", "update_id", id, "keys", keys, "where", where)
	}
	if m != nil && b.mayAnswerUnreadable(m) {
		if _, fresh := b.accept(id, "", nil); fresh {
			_, pl := sessionKey(m)
			b.api.notify(pl, m.ID, view.Unreadable)
		}
	}
	return id, true
}

// mayAnswerUnreadable applies to an unreadable message the checks
// handleMessage applies before it answers anything.
func (b *Bot) mayAnswerUnreadable(m *models.Message) bool {
	if m.From.IsBot || !b.allow.user(m.From.ID) {
		return false
	}
	group := isGroup(m.Chat.ID)
	if !b.allow.chat(m.Chat.ID) {
		return false
	}
	if group {
		_, _, _, addressed := b.parseText(m)
		return addressed
	}
	return true
}
