package telegram_test

import (
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram/tgtest"
)

// In a group, a built-in command of the chat's engine (engine.Builtins:
// Claude Code's /compact) reaches Claude without naming the bot, as the
// project's commands do.
func TestEngineBuiltinPassesInAGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		g := tgtest.Supergroup(-100778, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "/compact")
		h.awaitText(g.ID, "Answer: /compact")
	})
}
