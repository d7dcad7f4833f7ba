package telegram

import (
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/view"
)

// An update the bot cannot decode (a variant or field a newer Bot API added,
// or a value of the wrong type) costs that update alone: getUpdates decodes
// each one on its own, and one that fails is logged, skipped and, when its
// sender may use the bot, answered with one line. What the bot still reads of
// it is in the small types below, never the models: only who sent it, where,
// and whether it was meant for the bot.

// decodeUpdate decodes one update of a getUpdates batch.
func decodeUpdate(raw json.RawMessage) (models.Update, error) {
	var u models.Update
	if err := json.Unmarshal(raw, &u); err != nil {
		return models.Update{}, err
	}
	return u, nil
}

// unreadableWho is the sender and chat of an unreadable message. It is
// decoded strictly: a wrong type in any of these fields, and nobody is
// answered.
type unreadableWho struct {
	Chat struct {
		ID      int64  `json:"id"`
		Type    string `json:"type"`
		IsForum bool   `json:"is_forum"`
	} `json:"chat"`
	From *struct {
		ID    int64 `json:"id"`
		IsBot bool  `json:"is_bot"`
	} `json:"from"`
}

// unreadableWhat is what places the answer and tells whether a group message
// was meant for the bot. It is decoded leniently (encoding/json fills every
// field it can): a field of the wrong type is left empty, which at worst
// answers without quoting the message, or not at all in a group.
type unreadableWhat struct {
	ID              int                    `json:"message_id"`
	Thread          int                    `json:"message_thread_id"`
	IsTopic         bool                   `json:"is_topic_message"`
	Text            string                 `json:"text"`
	Entities        []models.MessageEntity `json:"entities"`
	Caption         string                 `json:"caption"`
	CaptionEntities []models.MessageEntity `json:"caption_entities"`
	ReplyTo         *struct {
		From *struct {
			ID int64 `json:"id"`
		} `json:"from"`
	} `json:"reply_to_message"`
}

// readUnreadable reads what a message-like payload still tells; nil when its
// chat or sender cannot be read.
func readUnreadable(payload json.RawMessage) *models.Message {
	var who unreadableWho
	if json.Unmarshal(payload, &who) != nil || who.Chat.ID == 0 || who.From == nil || who.From.ID == 0 {
		return nil
	}
	var what unreadableWhat
	_ = json.Unmarshal(payload, &what) // lenient: see unreadableWhat
	m := &models.Message{ID: what.ID, MessageThreadID: what.Thread, IsTopicMessage: what.IsTopic,
		Chat: models.Chat{ID: who.Chat.ID, Type: models.ChatType(who.Chat.Type), IsForum: who.Chat.IsForum},
		From: &models.User{ID: who.From.ID, IsBot: who.From.IsBot},
		Text: what.Text, Entities: what.Entities, Caption: what.Caption, CaptionEntities: what.CaptionEntities}
	if what.ReplyTo != nil && what.ReplyTo.From != nil {
		m.ReplyToMessage = &models.Message{From: &models.User{ID: what.ReplyTo.From.ID}}
	}
	return m
}

// skipUnreadable handles an update decodeUpdate refused (err). It returns the
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
		m = readUnreadable(payload)
	} else if payload := fields["edited_message"]; payload != nil {
		m = readUnreadable(payload)
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
