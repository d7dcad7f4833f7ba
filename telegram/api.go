package telegram

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Every call to Telegram below goes through the outbox, except getMe at
// start-up and polling.

// tgAPI is the bot's way to Telegram: each message, edit, document,
// answer to a press and command menu goes through it, paced by the outbox
// and passed through the redactor. It knows nothing of chats' sessions or
// turns; the bot and its features hold one.
type tgAPI struct {
	client   *tgbot.Bot
	out      *outbox.Outbox
	redactor *redact.Redactor
	log      *slog.Logger
}

// redact is the one redactor's plain form (see Bot.redact).
func (api *tgAPI) redact(s string) string { return api.redactor.String(s) }

func (api *tgAPI) getMe(ctx context.Context) (botIdentity, error) {
	u, err := api.client.GetMe(ctx)
	if err != nil {
		return botIdentity{}, fmt.Errorf("telegram getMe (is the bot token valid? is api_url right?): %s", api.redact(err.Error()))
	}
	return botIdentity{ID: u.ID, Username: u.Username, Topics: u.HasTopicsEnabled}, nil
}

// dropWebhook removes a webhook left set for this bot (by another
// deployment, or an earlier experiment): while one is set, Telegram refuses
// getUpdates with 409 and the bot would never see a message.
func (api *tgAPI) dropWebhook(ctx context.Context) error {
	info, err := api.client.GetWebhookInfo(ctx)
	if err != nil {
		return fmt.Errorf("telegram getWebhookInfo: %s", api.redact(err.Error()))
	}
	if info.URL == "" {
		return nil
	}
	host := info.URL
	if u, err := url.Parse(info.URL); err == nil {
		host = u.Host
	}
	api.log.Warn("a webhook is set for this bot; removing it so long polling works (pending updates are kept)", "webhook_host", host)
	if _, err := api.client.DeleteWebhook(ctx, &tgbot.DeleteWebhookParams{DropPendingUpdates: false}); err != nil {
		return fmt.Errorf("telegram deleteWebhook: %s", api.redact(err.Error()))
	}
	return nil
}

func (api *tgAPI) setCommands(ctx context.Context) error {
	return api.out.Send(ctx, outbox.Job{Unpaced: true, Do: func(ctx context.Context) error {
		_, err := api.client.SetMyCommands(ctx, &tgbot.SetMyCommandsParams{Commands: view.Commands()})
		return api.wrap("setMyCommands", err)
	}})
}

// wrap adds the method and removes the token from an API error.
func (api *tgAPI) wrap(method string, err error) error {
	if err == nil {
		return nil
	}
	return &apiError{method: method, err: err, msg: api.redact(err.Error())}
}

type apiError struct {
	method string
	msg    string
	err    error
}

func (e *apiError) Error() string { return "telegram " + e.method + ": " + e.msg }
func (e *apiError) Unwrap() error { return e.err }

func isParseError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "can't parse entities")
}

// isTooLong reports Telegram refusing a text for its length: the visible
// text (message is too long) or the room its entities take (ENTITIES_TOO_LONG,
// a bound the Bot API does not publish).
func isTooLong(err error) bool {
	if err == nil {
		return false
	}
	e := strings.ToLower(err.Error())
	return strings.Contains(e, "message is too long") || strings.Contains(e, "entities_too_long") ||
		strings.Contains(e, "entities too long")
}

func isNotFound(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "message to edit not found") ||
		strings.Contains(err.Error(), "message to delete not found") ||
		strings.Contains(err.Error(), "message can't be"))
}

// place says where a message goes: a chat, maybe a forum topic.
type place = chat.Place

var noPreview = &models.LinkPreviewOptions{IsDisabled: tgbot.True()}

// send posts an HTML message and returns its id, waiting for delivery.
// If Telegram rejects the HTML, the plain text is sent instead. Like edit
// and answerCallback, it redacts everything it sends.
func (api *tgAPI) send(ctx context.Context, p place, replyTo int, text string, kb view.Keyboard, prio outbox.Priority) (int, error) {
	var id int
	text, kb = api.redact(text), kb.Redacted(api.redactor)
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			m, err := api.client.SendMessage(ctx, api.sendParams(p, replyTo, text, kb, parse))
			if err != nil {
				return api.wrap("sendMessage", err)
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

// sendParams is a sendMessage of redacted HTML text, or (parse false) of
// its plain text, replying to replyTo when not 0.
func (api *tgAPI) sendParams(p place, replyTo int, text string, kb view.Keyboard, parse bool) *tgbot.SendMessageParams {
	params := &tgbot.SendMessageParams{
		ChatID:             p.ChatID,
		MessageThreadID:    p.Thread,
		Text:               text,
		ReplyMarkup:        kb.Markup(),
		LinkPreviewOptions: noPreview,
	}
	if parse {
		params.ParseMode = models.ParseModeHTML
	} else {
		// Unescaping and dropping tags can join a secret the HTML held
		// apart.
		params.Text = api.redact(plainText(text))
	}
	if replyTo != 0 {
		params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
	}
	return params
}

// sendParsed runs a send with parse_mode HTML and, if Telegram rejects the
// HTML, once more as plain text (do(false)).
func (api *tgAPI) sendParsed(ctx context.Context, chatID int64, prio outbox.Priority, do func(parse bool) func(context.Context) error) error {
	err := api.out.Send(ctx, outbox.Job{ChatID: chatID, Priority: prio, Do: do(true)})
	if isParseError(err) {
		api.log.Warn("telegram rejected HTML, sending plain text", "chat_id", chatID, "err", err)
		err = api.out.Send(ctx, outbox.Job{ChatID: chatID, Priority: prio, Do: do(false)})
	}
	return err
}

// edit replaces a message's text and keyboard (no keyboard removes it).
// With a key, a queued older edit of the same message is superseded and the
// call does not wait; onDone, if set, gets the result.
func (api *tgAPI) edit(ctx context.Context, chatID int64, msgID int, text string, kb view.Keyboard, prio outbox.Priority, key string, onDone func(error)) error {
	text, kb = api.redact(text), kb.Redacted(api.redactor)
	do := func(parse bool) func(context.Context) error {
		return func(ctx context.Context) error {
			params := &tgbot.EditMessageTextParams{ChatID: chatID, MessageID: msgID, Text: text,
				ReplyMarkup: kb.Markup(), LinkPreviewOptions: noPreview}
			if parse {
				params.ParseMode = models.ParseModeHTML
			} else {
				// Unescaping and dropping tags can join a secret the
				// HTML held apart.
				params.Text = api.redact(plainText(text))
			}
			_, err := api.client.EditMessageText(ctx, params)
			return api.wrap("editMessageText", err)
		}
	}
	job := outbox.Job{ChatID: chatID, Priority: prio, Key: key, Do: do(true)}
	if key != "" {
		job.OnDone = func(err error) {
			if isParseError(err) {
				job.Do, job.OnDone = do(false), onDone
				api.out.Replace(job)
				return
			}
			if onDone != nil {
				onDone(err)
			}
		}
		api.out.Replace(job)
		return nil
	}
	err := api.out.Send(ctx, job)
	if isParseError(err) {
		job.Do = do(false)
		err = api.out.Send(ctx, job)
	}
	return err
}

// answerCallback shows a toast; it never waits behind chat messages.
func (api *tgAPI) answerCallback(ctx context.Context, id, text string) {
	api.out.Enqueue(outbox.Job{Unpaced: true, Do: api.answerDo(id, text)})
}

// answerDo answers a press; like send, it redacts what it sends.
func (api *tgAPI) answerDo(id, text string) func(context.Context) error {
	text = api.redact(text)
	return func(ctx context.Context) error {
		_, err := api.client.AnswerCallbackQuery(ctx, &tgbot.AnswerCallbackQueryParams{CallbackQueryID: id, Text: text})
		if err != nil && strings.Contains(err.Error(), "query is too old") {
			return nil
		}
		return api.wrap("answerCallbackQuery", err)
	}
}

// notify sends a short message without waiting for it.
func (api *tgAPI) notify(p place, replyTo int, text string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	go func() {
		defer cancel()
		if _, err := api.send(ctx, p, replyTo, text, nil, outbox.Normal); err != nil && !errors.Is(err, outbox.ErrClosed) {
			api.log.Warn("could not send a notice", "chat_id", p.ChatID, "err", err)
		}
	}()
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// plainText turns our own generated HTML back into text, for the fallback.
func plainText(s string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(s, ""))
}
