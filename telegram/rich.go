package telegram

import (
	"context"
	"errors"
	"strings"
	"sync"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Rich answers (Bot API 10.1): an answer with a table, a task list, a
// heading or a long code block goes out as one rich message
// (sendRichMessage); everything else, and every answer Telegram refuses as
// a rich message, takes the Telegram HTML path. The user always gets the
// answer: a refusal costs one call, never the answer.

// sendRich posts a rich message of html and returns its id, waiting for
// delivery. Like send, it redacts what it sends.
func (api *tgAPI) sendRich(ctx context.Context, p place, replyTo int, html string, prio outbox.Priority) (int, error) {
	var id int
	html = api.redact(html)
	err := api.out.Send(ctx, outbox.Job{ChatID: p.ChatID, Priority: prio, Do: func(ctx context.Context) error {
		params := &tgbot.SendRichMessageParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
			RichMessage: models.InputRichMessage{HTML: html}}
		if replyTo != 0 {
			params.ReplyParameters = &models.ReplyParameters{MessageID: replyTo, AllowSendingWithoutReply: true}
		}
		m, err := api.client.SendRichMessage(ctx, params)
		if err != nil {
			return api.wrap("sendRichMessage", err)
		}
		id = m.ID
		return nil
	}})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// richChats says, per chat, whether rich messages go there: they are on
// ([progress] rich) and Telegram did not refuse them there.
type richChats struct {
	api   *tgAPI
	plain bool     // [progress] rich = false
	no    sync.Map // chat id → Telegram refused a rich message there: plain answers
	nos   sync.Map // chat id → rich messages refused in a row (an int)
}

// on says whether a chat gets rich messages.
func (r *richChats) on(chatID int64) bool {
	_, refused := r.no.Load(chatID)
	return !r.plain && !refused
}

// answer is the rich form of an answer, or "" when it goes out as
// Telegram HTML: not rich, too big for one rich message, rich messages
// turned off ([progress] rich = false), or refused in this chat before.
func (r *richChats) answer(chatID int64, result, footer string) string {
	if !r.on(chatID) {
		return ""
	}
	html, ok := view.FinalRich(result, footer)
	if !ok {
		return ""
	}
	return html
}

// sendRichAnswer tries the answer as a rich message and reports whether
// it was delivered (and its id); when not, the caller sends it the plain way, and
// richResult notes the refusal (a server that does not know the method
// is not asked again in this chat, nor is one that refused three in a row).
func (t *tgTurn) sendRichAnswer(ctx context.Context, html string) (id int, ok bool) {
	b := t.b
	id, err := b.api.sendRich(ctx, t.place, t.msgID, html, outbox.High)
	if errors.Is(err, outbox.ErrClosed) {
		t.undeliver()  // the bot is stopping: the next start sends it, if held
		return 0, true // nothing else would go out either
	}
	b.rich.result(t.place.ChatID, err, "an answer")
	return id, err == nil
}

// richRefusalsMax is how many rich messages in a row Telegram may refuse
// in a chat before the bot stops asking there (until it restarts): a
// dialect it does not take would otherwise cost a failed call an answer.
const richRefusalsMax = 3

// result notes how Telegram took a rich message in a chat: a server
// that does not know the method is not asked again there; other
// refusals count, and richRefusalsMax in a row do the same; a success
// clears the count.
func (r *richChats) result(chatID int64, err error, what string) {
	if err == nil {
		r.nos.Delete(chatID)
		return
	}
	n := 1
	if v, ok := r.nos.Load(chatID); ok {
		n += v.(int)
	}
	r.nos.Store(chatID, n)
	if richUnknown(err) || n >= richRefusalsMax {
		r.no.Store(chatID, true)
		r.api.log.Info("telegram does not take rich messages here: this chat gets plain ones", "chat_id", chatID,
			"refusals", n, "err", err)
		return
	}
	r.api.log.Warn("telegram refused a rich message, sending it the plain way", "chat_id", chatID, "what", what, "err", err)
}

// richUnknown tells the answer of a Bot API server that lacks the method:
// 404 Not Found, as for any unknown method.
func richUnknown(err error) bool {
	return errors.Is(err, tgbot.ErrorNotFound) || strings.Contains(err.Error(), "Not Found")
}

// Streaming: while Claude writes a rich answer, the draft is a rich one
// (sendRichMessageDraft), so the table being written shows as a table.

// draft is the rich draft of md (redacted Markdown being written), or
// "" when it goes as a plain draft: rich messages off or refused in this
// chat, md not rich (yet), or over a rich message's limits.
func (r *richChats) draft(chatID int64, md string) string {
	if !r.on(chatID) {
		return ""
	}
	html, ok := view.StreamRich(md)
	if !ok {
		return ""
	}
	return html
}

// queueRich queues a rich draft in the chat's action lane, replacing a
// queued draft like any other. A refused one turns this turn's drafts
// plain (the next draft shows the text); a server that does not know the
// method is not asked again in this chat.
func (s *streamer) queueRich(html string, prio outbox.Priority) {
	s.addPending()
	b, p := s.b, s.pl
	html = b.redact(html)
	b.out.Replace(outbox.Job{ChatID: p.ChatID, Priority: prio, Action: true, Key: s.key, Do: func(ctx context.Context) error {
		_, err := b.client.SendRichMessageDraft(ctx, &tgbot.SendRichMessageDraftParams{ChatID: p.ChatID,
			MessageThreadID: p.Thread, DraftID: int(s.draftID), RichMessage: models.InputRichMessage{HTML: html},
			CanStop: true, KeepOnStop: true})
		return b.api.wrap("sendRichMessageDraft", err)
	}, OnDone: func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) && !errors.Is(err, outbox.ErrDropped) && !errors.Is(err, outbox.ErrSuperseded) {
			s.mu.Lock()
			s.plain = true
			s.mu.Unlock()
			b.rich.result(p.ChatID, err, "a draft")
			signal(s.kick) // show the text again, plain
			err = nil
		} else if err == nil {
			b.rich.result(p.ChatID, nil, "")
		}
		s.draftDone(err)
	}})
}

// sendFolded sends, where rich messages are on, the rich form build
// makes (a long text folded: /diff, an approval's input) instead of a
// file, and returns its id once delivered; false leaves the file to the
// caller.
func (r *richChats) sendFolded(ctx context.Context, p place, replyTo int, prio outbox.Priority, build func() (string, bool)) (int, bool) {
	if !r.on(p.ChatID) {
		return 0, false
	}
	html, ok := build()
	if !ok {
		return 0, false
	}
	id, err := r.api.sendRich(ctx, p, replyTo, html, prio)
	if !errors.Is(err, outbox.ErrClosed) {
		r.result(p.ChatID, err, "a folded text")
	}
	return id, err == nil
}
