package telegram

import (
	"context"
	"errors"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// showPrompt sends the prompt (a reply to the progress message) with the
// keyboard on its last part, and records that message in the prompt book.
// A tool prompt that cannot show the whole input is preceded by a file with
// all of it: the buttons exist only once the file is delivered, and if it
// cannot be, the prompt says so and offers Deny alone.
func (t *tgTurn) showPrompt(ctx context.Context, p *approvals.Prompt) {
	b := t.b
	p = p.Redacted(b.redactor) // before the view cuts anything; the broker keeps the original
	if t.adopted && t.takeBackPrompt(p) {
		return // asked again after a restart: its first prompt's buttons work
	}
	a := t // the place and key of the turn's chat
	var parts []string
	var kb view.Keyboard
	var at view.Attached
	workDir := b.core.Settings(a.key).WorkDir // paths are shown relative to it
	now := time.Now()
	replyTo := t.progressID
	if replyTo == 0 {
		replyTo = t.msgID
	}
	if p.Kind == approvals.KindQuestion && p.Question != nil {
		parts = []string{view.QuestionTextIn(p.Question, isGroup(a.place.ChatID))}
		kb = view.QuestionKeyboard(p.Question, prefixApproval)
	} else {
		if at.File = view.PromptFullInput(p, workDir, now); at.File != nil {
			f := at.File
			id, folded := b.rich.sendFolded(ctx, a.place, replyTo, outbox.High, func() (string, bool) {
				return view.FullInputRich(view.FullInputCaption(f), f.Name, f.Text)
			})
			var err error
			if !folded {
				id, err = b.api.sendDocument(ctx, a.place, replyTo, f.Name, []byte(f.Text), view.FullInputCaption(f), outbox.High)
			}
			if err != nil {
				b.log.Warn("full input of an approval prompt not delivered: only Deny is offered", "chat_id", a.place.ChatID,
					"request_id", p.Request.RequestID, "err", err)
			} else {
				at.Sent, at.Folded, replyTo = true, folded, id
			}
		}
		parts = view.PromptTextAttached(p, workDir, time.Now(), at) // the file may have taken a while
		kb = view.PromptKeyboardAttached(p, prefixApproval, at)
	}
	key := promptKey{a.key, p.Request.RequestID}
	var last int
	for i, part := range b.approvers.withApprovers(a.place.ChatID, parts) {
		var k view.Keyboard
		if i == len(parts)-1 {
			k = kb
		}
		id, err := b.api.send(ctx, a.place, replyTo, part, k, outbox.High)
		if err != nil {
			b.log.Error("approval prompt not delivered", "chat_id", a.place.ChatID, "request_id", p.Request.RequestID, "err", err)
			b.prompts.abandon(key)
			return // the broker's timer still answers the CLI
		}
		replyTo, last = id, id
	}
	ref := promptRef{ChatID: a.place.ChatID, MessageID: last}
	// Recorded before anyone can resolve it through the book, so the
	// record is always removed after it is added.
	if err := b.store.AddLive(prefs.LiveMessage{Kind: prefs.LivePrompt, ChatID: a.place.ChatID, MessageID: last,
		ThreadID: a.place.Thread, SessionKey: a.key, Created: time.Now(), RequestID: p.Request.RequestID}); err != nil {
		b.log.Warn("could not record prompt message", "chat_id", a.place.ChatID, "err", err)
	}
	// The user sees the buttons as soon as Telegram has the message, which
	// can be before send returns: a press, a timeout or a cancel may have
	// come first and left its result in the book.
	if b.prompts.shown(key, ref, resolvedOriginal(p, parts, workDir, at)) {
		b.forgetPrompt(ref)
	}
}

// resolvedOriginal is the prompt's last part as it should read once
// answered: without the "answer within" line, which would be stale.
func resolvedOriginal(p *approvals.Prompt, parts []string, workDir string, at view.Attached) string {
	last := parts[len(parts)-1]
	if p.Kind == approvals.KindQuestion {
		return last
	}
	// A zero time leaves the deadline out. Only the last part can change,
	// unless the whole now fits fewer parts: then keep what was shown.
	if alt := view.PromptTextAttached(p, workDir, time.Time{}, at); len(alt) == len(parts) {
		return alt[len(alt)-1]
	}
	return last
}

// afterPress edits the prompt: the outcome and who decided (no buttons), or
// the next state of a question.
func (b *Bot) afterPress(ctx context.Context, res approvals.Result, from *models.User) {
	key := promptKey{res.Request.SessionKey, res.Request.RequestID}
	if !res.Final() {
		if q := res.Question.Redacted(b.redactor); q != nil {
			text := b.approvers.withApprovers(res.Request.ChatID, []string{view.QuestionTextIn(q, isGroup(res.Request.ChatID))})[0]
			b.prompts.update(key, q.Version, text, view.QuestionKeyboard(q, prefixApproval))
		}
		return
	}
	b.resolvePrompt(ctx, key, view.Outcome{Kind: res.Outcome, By: displayName(from),
		Question: res.Request.IsQuestion(), Answers: res.Answers})
}

// resolvePrompt shows the outcome on the prompt, or leaves it in the book
// for showPrompt when the prompt is still being sent.
func (b *Bot) resolvePrompt(ctx context.Context, key promptKey, o view.Outcome) {
	if ref, ok := b.prompts.resolve(key, o.Redacted(b.redactor)); ok {
		b.forgetPrompt(ref)
	}
}

// editPrompt queues an edit of a prompt message (see promptBook). A
// question's next state (it has buttons) is for the user to act on: high
// priority. An outcome ("✅ Approved by …") is housekeeping: it yields to
// the answer and prompts the decision lets through.
func (b *Bot) editPrompt(ref promptRef, text string, kb view.Keyboard) {
	prio := outbox.Low
	if kb != nil {
		prio = outbox.High
	}
	_ = b.api.edit(context.Background(), ref.ChatID, ref.MessageID, text, kb, prio, promptEditKey(ref), func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			b.log.Warn("could not edit prompt", "chat_id", ref.ChatID, "err", err)
		}
	})
}

// forgetPrompt drops the record of a resolved prompt's message.
func (b *Bot) forgetPrompt(ref promptRef) {
	if err := b.store.RemoveLive(ref.ChatID, ref.MessageID); err != nil {
		b.log.Warn("could not forget prompt message", "chat_id", ref.ChatID, "err", err)
	}
}

// onResolved is the broker's hook for timeouts and cancellations, and the
// core's for a press taken elsewhere (the web view: By and Source).
func (b *Bot) onResolved(r approvals.Resolution) {
	b.resolvePrompt(context.Background(), promptKey{r.Request.SessionKey, r.Request.RequestID},
		view.Outcome{Kind: r.Outcome, Reason: r.Reason, By: r.By, Web: r.Source == approvals.SourceWeb})
}
