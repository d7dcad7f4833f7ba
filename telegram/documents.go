package telegram

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/safefile"
	"github.com/untether/untether/telegram/outbox"
)

// MaxUpload is the largest file the Bot API takes from a bot (50 MB).
const MaxUpload = 50 << 20

const maxUpload = MaxUpload

// maxPhoto is the largest image the Bot API takes as a photo (10 MB).
const maxPhoto = 10 << 20

// maxAlbum is how many items one album holds.
const maxAlbum = 10

// upload is one file to send, with its HTML caption.
type upload struct {
	name    string
	data    []byte
	caption string
	photo   bool // send as a photo, not a document
}

// sendDocument uploads data as a file named name, with an HTML caption, and
// returns the message id, waiting for delivery. It is paced like any
// message of the chat. If Telegram rejects the caption's HTML, the plain
// text is sent instead.
func (api *tgAPI) sendDocument(ctx context.Context, p place, replyTo int, name string, data []byte, caption string, prio outbox.Priority) (int, error) {
	return api.sendUpload(ctx, p, replyTo, upload{name: name, data: data, caption: caption}, prio)
}

// sendUpload sends one file as a photo or a document (see sendDocument).
func (api *tgAPI) sendUpload(ctx context.Context, p place, replyTo int, u upload, prio outbox.Priority) (int, error) {
	method, limit := "sendDocument", maxUpload
	if u.photo {
		method, limit = "sendPhoto", maxPhoto
	}
	if len(u.data) == 0 || len(u.data) > limit {
		return 0, fmt.Errorf("telegram %s %s: %d bytes, want 1 to %d", method, u.name, len(u.data), limit)
	}
	// Like send, a backstop: the caption and name never carry a secret. The
	// contents are the caller's (an approval's input is redacted before it
	// is written out; a file may be binary).
	u.name, u.caption = api.redact(u.name), api.redact(u.caption)
	var id int
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			caption, mode := u.caption, models.ParseModeHTML
			if !parse {
				caption, mode = api.redact(plainText(caption)), ""
			}
			// A fresh reader per attempt: the outbox may retry.
			file := &models.InputFileUpload{Filename: u.name, Data: bytes.NewReader(u.data)}
			var reply *models.ReplyParameters
			if replyTo != 0 {
				reply = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
			}
			var m *models.Message
			var err error
			if u.photo {
				m, err = api.client.SendPhoto(ctx, &tgbot.SendPhotoParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
					Photo: file, Caption: caption, ParseMode: mode, ReplyParameters: reply})
			} else {
				m, err = api.client.SendDocument(ctx, &tgbot.SendDocumentParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
					Document: file, Caption: caption, ParseMode: mode, ReplyParameters: reply})
			}
			if err != nil {
				return api.wrap(method, err)
			}
			id = m.ID
			return nil
		}
	}
	if err := api.sendParsed(ctx, p.ChatID, prio, do); err != nil {
		// The job may still be running (ctx ended first): id is its to write.
		return 0, err
	}
	return id, nil
}

// sendAlbum sends 2 to maxAlbum files as one album: all photos, or all
// documents (Telegram groups documents only with documents), with a total
// the Bot API takes in one request (maxUpload).
func (api *tgAPI) sendAlbum(ctx context.Context, p place, replyTo int, items []upload, prio outbox.Priority) error {
	total := 0
	for _, u := range items {
		total += len(u.data)
	}
	if len(items) < 2 || len(items) > maxAlbum || total > maxUpload {
		return fmt.Errorf("telegram sendMediaGroup: %d files of %d bytes, want 2 to %d of at most %d", len(items), total, maxAlbum, maxUpload)
	}
	for i := range items {
		items[i].name, items[i].caption = api.redact(items[i].name), api.redact(items[i].caption)
	}
	names := attachNames(items)
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			media := make([]models.InputMedia, len(items))
			for i, u := range items {
				caption, mode := u.caption, models.ParseModeHTML
				if !parse {
					caption, mode = api.redact(plainText(caption)), ""
				}
				// The part's name is the file's name in the chat: the library
				// names the upload after it.
				ref, data := "attach://"+names[i], bytes.NewReader(u.data)
				if u.photo {
					media[i] = &models.InputMediaPhoto{Media: ref, MediaAttachment: data, Caption: caption, ParseMode: mode}
				} else {
					media[i] = &models.InputMediaDocument{Media: ref, MediaAttachment: data, Caption: caption, ParseMode: mode}
				}
			}
			params := &tgbot.SendMediaGroupParams{ChatID: p.ChatID, MessageThreadID: p.Thread, Media: media}
			if replyTo != 0 {
				params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
			}
			_, err := api.client.SendMediaGroup(ctx, params)
			return api.wrap("sendMediaGroup", err)
		}
	}
	return api.sendParsed(ctx, p.ChatID, prio, do)
}

// mediaGroupFields are the form fields of a sendMediaGroup request, read
// from the library's params so that a field it adds is covered too.
func mediaGroupFields() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[tgbot.SendMediaGroupParams]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	return fields
}

// attachNames are the items' names, made unique (an album's parts are
// keyed by them) and safe as multipart field names. A name that is one of
// sendMediaGroup's own fields ("media", "chat_id") is changed too: the
// part would stand for that field (the library refuses the request).
func attachNames(items []upload) []string {
	seen := mediaGroupFields()
	out := make([]string, len(items))
	for i, u := range items {
		name := safefile.Name(u.name)
		if name == "" {
			name = "file"
		}
		for n := 2; seen[name]; n++ {
			name = strconv.Itoa(n) + "-" + safefile.Name(u.name)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}
