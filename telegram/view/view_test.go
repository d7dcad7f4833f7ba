package view

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-telegram/bot/models"
)

func TestKeyboardMarkup(t *testing.T) {
	if Keyboard(nil).Markup() != nil || (Keyboard{{}}).Markup() != nil {
		t.Error("an empty keyboard must give a nil interface, so reply_markup is omitted")
	}
	m := ProgressKeyboard("c:1").Markup()
	ik, ok := m.(*models.InlineKeyboardMarkup)
	if !ok {
		t.Fatalf("markup type %T", m)
	}
	if len(ik.InlineKeyboard) != 1 || len(ik.InlineKeyboard[0]) != 1 {
		t.Fatalf("rows %v", ik.InlineKeyboard)
	}
	// Compare the fields that matter: go-telegram/bot also sends an empty
	// copy_text on every button, which Telegram ignores.
	raw, err := json.Marshal(ik)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows [][]struct {
			Text  string `json:"text"`
			Data  string `json:"callback_data"`
			Style string `json:"style"`
		} `json:"inline_keyboard"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if b := got.Rows[0][0]; b.Text != "✖ Cancel" || b.Data != "c:1" || b.Style != StyleDanger {
		t.Errorf("markup JSON %s", raw)
	}
}

func TestKeyboardValidate(t *testing.T) {
	ok := Keyboard{{{Text: "a", Data: strings.Repeat("x", MaxCallbackData)}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("64-byte data refused: %v", err)
	}
	for name, kb := range map[string]Keyboard{
		"long data":  {{{Text: "a", Data: strings.Repeat("x", MaxCallbackData+1)}}},
		"empty data": {{{Text: "a"}}},
		"empty text": {{{Data: "d"}}},
		"bad style":  {{{Text: "a", Data: "d", Style: "green"}}},
	} {
		if kb.Validate() == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
