package telegram

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// The stall question of a turn (chat's stall watch decides when to ask):
// one message with Keep waiting and Cancel, settled when Claude goes on,
// the turn ends or the owner answers.

// stallAsk is one stall question: its message, which may still be on its
// way, and how it was settled. The turn settles it when Claude goes on or
// the turn ends; a Keep waiting press settles it from the router.
type stallAsk struct {
	b      *Bot
	chatID int64
	tok    string
	since  time.Time
	stall  view.Stall

	mu      sync.Mutex
	msgID   int
	settled bool
	text    string // the settled text
}

// askStall sends the question (off the turn's goroutine: a slow Telegram
// must not hold the turn) and returns it.
func (t *tgTurn) askStall(s view.Stall, since time.Time) *stallAsk {
	b, p, replyTo, cancel := t.b, t.place, t.progressID, cancelData(t.cancelT)
	q := &stallAsk{b: b, chatID: p.ChatID, since: since, stall: s}
	q.tok = b.stalls.add(q)
	s.For = time.Since(since)
	text, kb := view.StallText(s), view.StallKeyboard(prefixKeep+q.tok, cancel)
	go func() {
		ctx, stop := context.WithTimeout(b.baseCtx, time.Minute)
		defer stop()
		id, err := b.api.send(ctx, p, replyTo, text, kb, outbox.Normal)
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			b.log.Warn("could not ask about a stalled tool", "chat_id", p.ChatID, "err", err)
		}
		q.sent(id)
	}()
	return q
}

func (q *stallAsk) sent(id int) {
	q.mu.Lock()
	q.msgID = id
	text, settled := q.text, q.settled
	q.mu.Unlock()
	if settled && id != 0 {
		q.edit(id, text)
	}
}

// settle ends the question once: its buttons go, the text says how it
// ended. It reports false when it had ended already.
func (q *stallAsk) settle(how int, who string) bool {
	s := q.stall
	s.For = time.Since(q.since)
	q.mu.Lock()
	if q.settled {
		q.mu.Unlock()
		return false
	}
	q.settled, q.text = true, view.StallSettled(s, how, who)
	id, text := q.msgID, q.text
	q.mu.Unlock()
	q.b.stalls.remove(q.tok)
	if id != 0 {
		q.edit(id, text)
	}
	return true
}

func (q *stallAsk) edit(id int, text string) {
	_ = q.b.api.edit(context.Background(), q.chatID, id, text, nil, outbox.Normal, "", func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			q.b.log.Warn("could not update the stall question", "chat_id", q.chatID, "err", err)
		}
	})
}

// pressKeep is Keep waiting: the question is settled, the watchdog stays
// quiet about this stall (it asks once per stall anyway).
func (b *Bot) pressKeep(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	q, ok := b.stalls.get(tok)
	var chat int64
	if ok {
		chat = q.chatID
	}
	switch {
	case b.refusePress(ctx, cq, ok, chatID, chat, view.ToastExpired):
	case q.settle(view.StallKept, displayName(&cq.From)):
		b.api.answerCallback(ctx, cq.ID, view.ToastKeepWaiting)
	default:
		b.api.answerCallback(ctx, cq.ID, view.ToastExpired)
	}
}
