package telegram_test

import (
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// Repro (issue 30 review, item 1's class): a message that mentions the bot
// after a letter whose lower case is longer in UTF-8 ("İ" of İstanbul: two
// bytes, "i̇" three) made stripping the mention slice the text at an index
// found in its lower-cased copy: a panic on the poll loop, and the same
// update again after every restart, so one ordinary message stopped the
// bot for everyone, for good.
func TestReproMentionAfterTurkishCapital(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const group = -100777
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.AllowedChats = []int64{group} })
		mention := "@" + h.tg.Bot().Username
		g := tgtest.Chat{ID: group, Type: "supergroup", Title: "G"}
		h.tg.SendMessage(h.user, g, "ȺȺȺȺȺȺȺȺ "+mention)
		h.tg.SendMessage(h.user, g, mention+" after")
		h.awaitText(group, "Answer: ȺȺȺȺȺȺȺȺ")
		h.awaitText(group, "Answer: after")
		// Where the lower case is shorter the text was cut in the wrong
		// place instead: Claude read "İstanbul" and a piece of the mention.
		h.say("İstanbul " + mention + " hi")
		h.awaitText(h.dm.ID, "Answer: İstanbul  hi") // the mention's place keeps its spaces, as for any text
		h.stop()
	})
}
