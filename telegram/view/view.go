// Package view turns plain data into the Telegram HTML texts and inline
// keyboards the bot shows: progress messages, approval and question prompts,
// their outcomes, final-answer footers, errors, /status and /help.
//
// Everything here is a pure function of its arguments: no network, no
// clock, no goroutines. Every text returned satisfies render.Validate and is
// at most MaxMessage UTF-16 units of HTML source (the source length bounds
// what Telegram counts, so it fits either way). Functions that may need more
// than one message return []string; send the parts in order.
package view

import (
	"errors"
	"fmt"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/render"
)

// MaxMessage is Telegram's limit for one text message, in UTF-16 units.
const MaxMessage = render.MaxMessage

// MaxCallbackData is Telegram's limit for callback_data, in bytes.
const MaxCallbackData = 64

// Button is one inline button; Data is its callback_data. Style colours it
// (Bot API 9.4): StyleSuccess, StyleDanger, StylePrimary, or "" for the
// app's default.
type Button struct {
	Text  string
	Data  string
	Style string
	// WebApp opens this https address as a Mini App (private chats
	// only); Data is then empty.
	WebApp string
}

// Button styles (InlineKeyboardButton.style). A choice that throws work
// away or refuses is StyleDanger, never the default colour; the positive
// choice of a decision is StyleSuccess.
const (
	StyleSuccess = "success" // green
	StyleDanger  = "danger"  // red
	StylePrimary = "primary" // blue
)

// Keyboard is an inline keyboard, row by row. Nil means no keyboard.
type Keyboard [][]Button

// Markup converts k for the Bot API. It returns a nil interface (not a
// typed nil) for an empty keyboard so omitempty drops reply_markup; an edit
// without reply_markup removes the buttons of the message.
func (k Keyboard) Markup() models.ReplyMarkup {
	if len(k) == 0 {
		return nil
	}
	rows := make([][]models.InlineKeyboardButton, 0, len(k))
	for _, row := range k {
		if len(row) == 0 {
			continue
		}
		r := make([]models.InlineKeyboardButton, len(row))
		for i, b := range row {
			r[i] = models.InlineKeyboardButton{Text: b.Text, CallbackData: b.Data, Style: b.Style}
			if b.WebApp != "" {
				r[i].WebApp = &models.WebAppInfo{URL: b.WebApp}
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	return &models.InlineKeyboardMarkup{InlineKeyboard: rows}
}

// Validate reports buttons Telegram would refuse: empty text, or callback
// data empty or longer than MaxCallbackData bytes (a too-long prefix).
func (k Keyboard) Validate() error {
	var errs []error
	for i, row := range k {
		for j, b := range row {
			switch {
			case b.Text == "":
				errs = append(errs, fmt.Errorf("button %d/%d: empty text", i, j))
			case b.WebApp != "":
				if b.Data != "" || !strings.HasPrefix(b.WebApp, "https://") {
					errs = append(errs, fmt.Errorf("button %d/%d (%s): a Mini App button takes an https address and no callback data", i, j, b.Text))
				}
			case b.Data == "":
				errs = append(errs, fmt.Errorf("button %d/%d (%s): empty callback data", i, j, b.Text))
			case len(b.Data) > MaxCallbackData:
				errs = append(errs, fmt.Errorf("button %d/%d (%s): callback data is %d bytes, limit %d", i, j, b.Text, len(b.Data), MaxCallbackData))
			case b.Style != "" && b.Style != StyleSuccess && b.Style != StyleDanger && b.Style != StylePrimary:
				errs = append(errs, fmt.Errorf("button %d/%d (%s): unknown style %q", i, j, b.Text, b.Style))
			}
		}
	}
	return errors.Join(errs...)
}
