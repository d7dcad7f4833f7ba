package telegram

import (
	"context"
	"slices"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Held sessions in Telegram (docs/durability.md): the approval buttons a
// restart keeps, and a prompt shown before the restart taken back or
// expired when its turn goes on.

// takeBackPrompt makes the prompt a previous bot process showed for the
// same request the prompt of p: its buttons carry the same tokens (the
// broker's seed), so nothing is sent. It reports false when there is none.
func (t *tgTurn) takeBackPrompt(p *approvals.Prompt) bool {
	a, b := t, t.b
	live, err := b.store.ListLive()
	if err != nil {
		return false
	}
	for _, m := range live {
		if m.Kind != prefs.LivePrompt || m.SessionKey != a.key || m.RequestID != p.Request.RequestID {
			continue
		}
		workDir := b.core.Settings(a.key).WorkDir
		var parts []string
		at := view.Attached{Sent: true}
		if p.Kind == approvals.KindQuestion && p.Question != nil {
			parts = []string{view.QuestionTextIn(p.Question, isGroup(a.place.ChatID))}
		} else {
			at.File = view.PromptFullInput(p, workDir, time.Now())
			parts = view.PromptTextAttached(p, workDir, time.Now(), at)
		}
		ref := promptRef{ChatID: m.ChatID, MessageID: m.MessageID}
		t.keptPrompts = append(t.keptPrompts, m.MessageID)
		b.log.Info("a prompt shown before the restart is live again", "chat_id", a.place.ChatID, "request_id", p.Request.RequestID)
		if b.prompts.shown(promptKey{a.key, p.Request.RequestID}, ref, resolvedOriginal(p, parts, workDir, at)) {
			b.forgetPrompt(ref)
		}
		return true
	}
	return false
}

// expireStalePrompts marks the prompts of the previous bot process that
// the replay did not ask again (answered, withdrawn): they lose their
// buttons, as recover does for a session that did not go on.
func (t *tgTurn) Replayed(ctx context.Context) { t.expireStalePrompts(ctx) }

func (t *tgTurn) expireStalePrompts(ctx context.Context) {
	a, b := t, t.b
	live, err := b.store.ListLive()
	if err != nil {
		b.log.Warn("could not read live messages", "err", err)
		return
	}
	for _, m := range live {
		if m.Kind != prefs.LivePrompt || m.SessionKey != a.key || slices.Contains(t.keptPrompts, m.MessageID) {
			continue
		}
		text := view.OutcomeText("", view.Outcome{Kind: view.OutcomeExpired})
		if err := b.api.edit(ctx, m.ChatID, m.MessageID, text, nil, outbox.Normal, "", nil); err != nil && !isNotFound(err) {
			b.log.Warn("could not mark an orphaned prompt", "chat_id", m.ChatID, "err", err)
		}
		b.forgetPrompt(promptRef{ChatID: m.ChatID, MessageID: m.MessageID})
	}
}
