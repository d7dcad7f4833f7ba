package telegram

import (
	"context"
	"fmt"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// recover runs at start-up, before polling: Claude processes held through
// the restart are attached to again, messages of the previous run that
// were left live are marked, and accepted prompts that never started
// run now, oldest first (or get a note when they are too old).
func (b *Bot) recover(ctx context.Context) error {
	live, err := b.store.ListLive()
	if err != nil {
		return fmt.Errorf("read live messages: %w", err)
	}
	// Turns whose Claude was held through the restart go on (held.go).
	going, gone := b.core.Reattach(ctx)
	for _, m := range live {
		if going[m.SessionKey] {
			continue // its turn goes on: the replay decides about its prompts (held.go)
		}
		stopped := view.RestartedText
		if why, ok := gone[m.SessionKey]; ok {
			stopped = view.HeldEnd(why) // the bot's restart took nothing: Claude ended, or runs under another version
		}
		if m.Kind == prefs.LiveTurn {
			// Claude had the prompt, no progress message existed: say
			// so in reply to the user's message.
			b.api.notify(place{ChatID: m.ChatID, Thread: m.ThreadID}, m.MessageID, stopped)
			if err := b.store.RemoveLive(m.ChatID, m.MessageID); err != nil {
				return fmt.Errorf("forget live turn: %w", err)
			}
			continue
		}
		text := stopped
		if m.Kind == prefs.LivePrompt {
			text = view.OutcomeText("", view.Outcome{Kind: view.OutcomeExpired})
		}
		if err := b.api.edit(ctx, m.ChatID, m.MessageID, text, nil, outbox.Normal, "", nil); err != nil && !isNotFound(err) {
			b.log.Warn("could not mark an orphaned message", "chat_id", m.ChatID, "err", err)
		}
		if err := b.store.RemoveLive(m.ChatID, m.MessageID); err != nil {
			return fmt.Errorf("forget live message: %w", err)
		}
	}
	return b.core.ResumeQueued()
}
