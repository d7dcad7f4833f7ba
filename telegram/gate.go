package telegram

import (
	"context"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/accounts"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// The router's first line: what updates from strangers, and floods from
// anyone, may cost. Nothing a user who is not allowed sends is written to
// disk, gets a goroutine, or is answered ahead of the owner's messages.

// handlePress routes a button press. A stranger's press (or one beyond an
// allowed user's limit) is dropped on the poll loop: no disk write, no
// goroutine, at most an occasional answer in the outbox's background.
func (b *Bot) handlePress(ctx context.Context, updateID int64, cq *models.CallbackQuery) {
	now := time.Now()
	if !b.allow.user(cq.From.ID) {
		if b.accounts.Stranger(cq.From.ID, now) {
			b.log.Info("ignored a button press from a user who is not allowed", "user_id", cq.From.ID, "chat_id", callbackChat(cq))
			b.answerQuiet(cq.ID, view.ToastNotAllowed)
		}
		return // skipped
	}
	if ok, tell := b.accounts.Press(cq.From.ID, now); !ok {
		if tell {
			b.log.Warn("button presses beyond the per-user limit are ignored", "user_id", cq.From.ID,
				"chat_id", callbackChat(cq), "limit_per_minute", int(time.Minute/accounts.PressEvery))
			b.answerQuiet(cq.ID, view.ToastTooManyPresses)
		}
		return // skipped: a redelivery after a restart is handled then
	}
	if chatID := callbackChat(cq); !b.allow.chat(chatID) {
		// A button left in a group taken off allowed_chat_ids (a prompt
		// shown before the restart) acts no more than a message there.
		b.log.Info("ignored a button press in a chat that is not allowed", "user_id", cq.From.ID, "chat_id", chatID)
		b.answerQuiet(cq.ID, view.ToastNotAllowed)
		return // skipped
	}
	b.approvers.learnName(&cq.From)
	// A press must not wait for a disk sync (a commit is the bulk of its
	// round trip): a read tells a redelivery after a restart, the handler
	// starts, and the record is written meanwhile. A crash in between
	// redelivers the press to a broker that no longer knows it: the user
	// sees "expired", nothing is decided twice.
	if handled, err := b.store.Handled(updateID); err == nil && handled {
		return // redelivered after a restart: it was handled before
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.handleCallback(ctx, cq)
	}()
	b.accept(updateID, "", nil)
}

// refuse handles a message from a user who is not allowed: in a private
// chat they learn their id (to ask the owner), once per refusalEvery and
// within the budget all strangers share; the log gets a line as often.
func (b *Bot) refuse(p place, userID int64, group bool) {
	if !b.accounts.Stranger(userID, time.Now()) {
		return
	}
	b.log.Info("ignored a message from a user who is not allowed", "chat_id", p.ChatID, "user_id", userID)
	if !group {
		b.post(p, view.Refusal(userID))
	}
}

// answerQuiet answers a press nobody should wait for (a stranger's, one
// beyond the limit): in the outbox's background, after every message that
// is ready to go, without a goroutine of its own.
func (b *Bot) answerQuiet(id, text string) {
	b.out.Enqueue(outbox.Job{Unpaced: true, Priority: outbox.Low, Do: b.api.answerDo(id, text)})
}

// post sends a notice at low priority without waiting for it or holding a
// goroutine while it waits.
func (b *Bot) post(p place, text string) {
	b.out.Enqueue(outbox.Job{ChatID: p.ChatID, Priority: outbox.Low, Do: func(ctx context.Context) error {
		_, err := b.client.SendMessage(ctx, &tgbot.SendMessageParams{ChatID: p.ChatID, MessageThreadID: p.Thread,
			Text: text, ParseMode: models.ParseModeHTML, LinkPreviewOptions: noPreview})
		return b.api.wrap("sendMessage", err)
	}, OnDone: func(err error) {
		if err != nil {
			b.log.Debug("could not send a notice", "chat_id", p.ChatID, "err", err)
		}
	}})
}

// saveOffset stores the poll offset if updates that did no work (which are
// not written one by one) left the stored one behind. Should the bot stop
// before it is saved, Telegram has those updates confirmed by the next poll
// anyway, or delivers them again: harmless, since they did nothing.
func (b *Bot) saveOffset(offset int64) {
	if b.storedOffset.Load() == offset {
		return
	}
	if err := b.store.SetOffset(offset); err != nil {
		b.log.Warn("could not save the update offset", "err", err)
		return
	}
	b.storedOffset.Store(offset)
}

// logStrangers logs, at most once per summaryEvery, how many updates from
// users who are not allowed were ignored: most have no line of their own.
func (b *Bot) logStrangers() {
	if n, users, since, ok := b.accounts.Summary(time.Now()); ok {
		b.log.Info("ignored updates from users who are not allowed", "updates", n, "users", users,
			"since", since.Format(time.TimeOnly))
	}
}
