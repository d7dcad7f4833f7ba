package contain

import (
	"encoding/json"

	"github.com/go-telegram/bot/models"
)

// An update the bot cannot decode (a variant or field a newer Bot API added,
// or a value of the wrong type) costs that update alone: getUpdates decodes
// each one on its own, and one that fails is logged, skipped and, when its
// sender may use the bot, answered with one line. What the bot still reads of
// it is in the small types below, never the models: only who sent it, where,
// and whether it was meant for the bot.

// Decode decodes one update of a getUpdates batch.
func Decode(raw json.RawMessage) (models.Update, error) {
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

// ReadUnreadable reads what a message-like payload still tells; nil when its
// chat or sender cannot be read.
func ReadUnreadable(payload json.RawMessage) *models.Message {
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
