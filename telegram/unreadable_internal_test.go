package telegram

import (
	"encoding/json"
	"testing"

	"github.com/untether/untether/telegram/contain"
)

// TestWhatDecodes records what go-telegram/bot (v1.27.0) decodes of what
// Telegram may send in the updates we ask for (message, edited_message,
// callback_query), so that an upgrade that changes it shows here. Whatever
// fails is skipped by the poll loop, one update at a time (decodeOrSkip).
func TestWhatDecodes(t *testing.T) {
	msg := func(extra string) string {
		return `{"update_id":1,"message":{"message_id":2,"date":3,"chat":{"id":4,"type":"private"},` +
			`"from":{"id":4,"is_bot":false,"first_name":"A"},"text":"hi"` + extra + `}}`
	}
	cases := []struct {
		name string
		raw  string
		ok   bool
	}{
		// Variants a newer Bot API adds to the unions reachable from a
		// message: tolerated since v1.26.0 (the union keeps the type, no
		// variant is set).
		{"forward_origin of an unknown type", msg(`,"forward_origin":{"type":"future_kind","date":1}`), true},
		{"external_reply origin of an unknown type", msg(`,"external_reply":{"origin":{"type":"future_kind","date":1}}`), true},
		{"reply_to_message forwarded from an unknown origin", msg(`,"reply_to_message":{"message_id":1,"date":1,"chat":{"id":4,"type":"private"},"forward_origin":{"type":"future_kind"}}`), true},
		{"chat_background_set of an unknown type", msg(`,"chat_background_set":{"type":{"type":"future_kind"}}`), true},
		{"background fill of an unknown type", msg(`,"chat_background_set":{"type":{"type":"fill","fill":{"type":"future_kind"},"dark_theme_dimming":0}}`), true},
		{"paid media of an unknown type", msg(`,"paid_media":{"star_count":1,"paid_media":[{"type":"future_kind"}]}`), true},
		{"rich block of an unknown type", msg(`,"rich_message":{"blocks":[{"type":"future_kind"}]}`), true},
		{"rich text of an unknown type", msg(`,"rich_message":{"blocks":[{"type":"paragraph","text":{"type":"future_kind"}}]}`), true},
		{"a pressed message forwarded from an unknown origin",
			`{"update_id":1,"callback_query":{"id":"q","from":{"id":4,"is_bot":false,"first_name":"A"},"chat_instance":"c","data":"d",` +
				`"message":{"message_id":2,"date":3,"chat":{"id":4,"type":"private"},"forward_origin":{"type":"future_kind"}}}}`, true},
		// Plain strings and unknown fields were never a problem.
		{"an entity of an unknown type", msg(`,"entities":[{"type":"future_entity","offset":0,"length":2}]`), true},
		{"a chat of an unknown type", `{"update_id":1,"message":{"message_id":2,"date":3,"chat":{"id":4,"type":"future_chat"},"text":"hi"}}`, true},
		{"a field added by a newer Bot API", msg(`,"future_field":{"a":[1,2]}`), true},
		{"an update kind added by a newer Bot API", `{"update_id":1,"future_update":{"a":1}}`, true},
		// Still refused: a union without its discriminator, and any value
		// of another JSON type than the field's.
		{"forward_origin without a type", msg(`,"forward_origin":{"date":1}`), false},
		{"rich text that is a number", msg(`,"rich_message":{"blocks":[{"type":"paragraph","text":7}]}`), false},
		{"message_id that is an object", `{"update_id":1,"message":{"message_id":{"n":1},"date":3,"chat":{"id":4,"type":"private"}}}`, false},
		{"date that is a word", `{"update_id":1,"message":{"message_id":2,"date":"yesterday","chat":{"id":4,"type":"private"}}}`, false},
		{"a pressed message whose date is a word",
			`{"update_id":1,"callback_query":{"id":"q","from":{"id":4,"is_bot":false,"first_name":"A"},"chat_instance":"c",` +
				`"message":{"message_id":2,"date":"now","chat":{"id":4,"type":"private"}}}}`, false},
	}
	for _, c := range cases {
		_, err := contain.Decode(json.RawMessage(c.raw))
		if (err == nil) != c.ok {
			t.Errorf("%s: decoded = %v, want %v (err %v)", c.name, err == nil, c.ok, err)
		}
	}
}
