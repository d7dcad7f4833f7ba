package tgtest

import (
	"bytes"
	"encoding/json"
)

// Button is one inline keyboard button as the bot sent it (the fields tests look at).
type Button struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
	// Style is the button's colour (Bot API 9.4): "danger", "success", "primary", or "" for the app's.
	Style string `json:"style,omitempty"`
}

// keyboard is a parsed inline keyboard. canonical is its normalised JSON, which is what Telegram echoes in
// Message.reply_markup and what "message is not modified" compares.
type keyboard struct {
	rows      [][]Button
	canonical json.RawMessage
}

func (k *keyboard) equal(o *keyboard) bool {
	if k == nil || o == nil {
		return k == nil && o == nil
	}
	return bytes.Equal(k.canonical, o.canonical)
}

func (k *keyboard) json() json.RawMessage {
	if k == nil {
		return nil
	}
	return k.canonical
}

// buttonActions are the fields that make an inline button do something; a button needs exactly one.
var buttonActions = []string{
	"url", "callback_data", "web_app", "login_url", "switch_inline_query", "switch_inline_query_current_chat",
	"switch_inline_query_chosen_chat", "copy_text", "callback_game", "pay",
}

// parseMarkup reads a reply_markup parameter. An inline keyboard comes back parsed (nil when it has no buttons,
// which removes the keyboard); other markups (reply keyboards, force_reply) come back raw, refused when
// inlineOnly as edits accept only inline keyboards.
func parseMarkup(raw string, inlineOnly bool) (*keyboard, json.RawMessage, *apiError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
		return nil, nil, badRequest("can't parse reply keyboard markup JSON object")
	}
	rowsRaw, isInline := obj["inline_keyboard"]
	if !isInline {
		if inlineOnly {
			return nil, nil, badRequest("inline keyboard expected")
		}
		return nil, json.RawMessage(raw), nil
	}
	var rows [][]map[string]json.RawMessage
	if err := json.Unmarshal(rowsRaw, &rows); err != nil {
		return nil, nil, badRequest("field \"inline_keyboard\" of the InlineKeyboardMarkup must be an Array of Arrays")
	}
	kb := &keyboard{}
	var canon [][]map[string]json.RawMessage
	for _, row := range rows {
		if len(row) == 0 {
			continue
		}
		var btns []Button
		var canonRow []map[string]json.RawMessage
		for _, b := range row {
			btn, norm, e := parseButton(b)
			if e != nil {
				return nil, nil, e
			}
			btns = append(btns, btn)
			canonRow = append(canonRow, norm)
		}
		kb.rows = append(kb.rows, btns)
		canon = append(canon, canonRow)
	}
	if len(kb.rows) == 0 {
		return nil, nil, nil
	}
	// Maps marshal with sorted keys, so equal keyboards give equal bytes.
	kb.canonical, _ = json.Marshal(map[string]any{"inline_keyboard": canon}) // built from parsed JSON: cannot fail
	return kb, nil, nil
}

// parseButton validates a button like Telegram and drops the empty fields clients send (go-telegram/bot sends
// "copy_text":{"text":""} on every button).
func parseButton(b map[string]json.RawMessage) (Button, map[string]json.RawMessage, *apiError) {
	var btn Button
	if err := json.Unmarshal(b["text"], &btn.Text); err != nil {
		return btn, nil, badRequest("can't parse inline keyboard button: Field \"text\" must be of type String")
	}
	norm := map[string]json.RawMessage{}
	for k, v := range b {
		if isEmptyButtonField(k, v) {
			continue
		}
		norm[k] = v
	}
	actions := 0
	for _, a := range buttonActions {
		if _, ok := norm[a]; ok {
			actions++
		}
	}
	if actions == 0 {
		return btn, nil, badRequest("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
	}
	if v, ok := norm["callback_data"]; ok {
		if err := json.Unmarshal(v, &btn.CallbackData); err != nil || len(btn.CallbackData) > 64 {
			return btn, nil, badRequest("BUTTON_DATA_INVALID")
		}
	}
	if v, ok := norm["style"]; ok {
		// The documented values; the wording of the refusal is ours (the real one is not documented).
		if err := json.Unmarshal(v, &btn.Style); err != nil || (btn.Style != "danger" && btn.Style != "success" && btn.Style != "primary") {
			return btn, nil, badRequest("can't parse inline keyboard button: style must be one of \"danger\", \"success\", \"primary\"")
		}
	}
	if v, ok := norm["url"]; ok {
		if err := json.Unmarshal(v, &btn.URL); err != nil {
			return btn, nil, badRequest("can't parse inline keyboard button: Field \"url\" must be of type String")
		}
	}
	return btn, norm, nil
}

func isEmptyButtonField(key string, v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "null", "false":
		return true
	case `""`:
		// An empty inline query is meaningful: it opens the inline mode with nothing typed.
		return key != "switch_inline_query" && key != "switch_inline_query_current_chat"
	}
	if key == "copy_text" {
		var ct struct {
			Text string `json:"text"`
		}
		return json.Unmarshal(v, &ct) == nil && ct.Text == ""
	}
	return false
}
