package telegram

import (
	"bytes"
	"context"
	"fmt"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"
)

// maxUpload is the largest file the Bot API takes from a bot (50 MB).
const maxUpload = 50 << 20

// sendDocument uploads data as a file named name, with an HTML caption, and
// returns the message id, waiting for delivery. It is paced like any
// message of the chat. If Telegram rejects the caption's HTML, the plain
// text is sent instead.
func (b *Bot) sendDocument(ctx context.Context, p place, replyTo int, name string, data []byte, caption string, prio outbox.Priority) (int, error) {
	if len(data) == 0 || len(data) > maxUpload {
		return 0, fmt.Errorf("telegram sendDocument %s: %d bytes, want 1 to %d", name, len(data), maxUpload)
	}
	// Like send, a backstop: the caption and name never carry a secret. The
	// contents are the caller's (an approval's input is redacted before it
	// is written out; a file may be binary).
	name, caption = b.redact(name), b.redact(caption)
	var id int
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			params := &tgbot.SendDocumentParams{
				ChatID:          p.ChatID,
				MessageThreadID: p.Thread,
				// A fresh reader per attempt: the outbox may retry.
				Document: &models.InputFileUpload{Filename: name, Data: bytes.NewReader(data)},
				Caption:  caption,
			}
			if parse {
				params.ParseMode = models.ParseModeHTML
			} else {
				params.Caption = plainText(caption)
			}
			if replyTo != 0 {
				params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
			}
			m, err := b.client.SendDocument(ctx, params)
			if err != nil {
				return b.wrap("sendDocument", err)
			}
			id = m.ID
			return nil
		}
	}
	if err := b.sendParsed(ctx, p.ChatID, prio, do); err != nil {
		// The job may still be running (ctx ended first): id is its to write.
		return 0, err
	}
	return id, nil
}
