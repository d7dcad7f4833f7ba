package main

import (
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// A quoted reply reaches Claude: the fake CLI echoes what it was given, the
// real one sends it to the (fake) model.

func TestProcessQuotedReplyReachesClaude(t *testing.T) {
	e := newE2E(t, testExecutable(t), fakeClaudeEnv("echo"), "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "pick a lock type")
	first := e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: pick a lock type") })
	e.tg.SendMessage(e.user, e.chat, "why this one?", tgtest.Quoting(first.ID, "lock type"))
	defer func() {
		if t.Failed() {
			for _, m := range e.tg.Messages(e.chat.ID) {
				t.Logf("%d: %q\n%q", m.ID, m.Text, m.Source)
			}
		}
	}()
	e.tg.AwaitMessage(30*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		// The quote block is Markdown: the answer shows it as a quotation.
		return answerHas(m, "echo: why this one?") && strings.Contains(m.Text, "The part they quoted:]\n\nlock type") &&
			strings.Contains(m.Source, "<blockquote>lock type</blockquote>")
	})
}

func TestContractBotQuotedReply(t *testing.T) {
	e, api := realClaude(t, claudetest.Say("Use a read-write mutex here."), claudetest.Say("Because reads dominate."))
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "How do I guard the cache?")
	first := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "read-write mutex") })
	e.tg.SendMessage(e.user, e.chat, "Why?", tgtest.Quoting(first.ID, "read-write mutex"))
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Because reads dominate.") })
	reqs := api.Requests()
	texts := strings.Join(reqs[len(reqs)-1].UserTexts(), "\n")
	want := "Why?\n\n[The user's message above is a reply in Telegram to a message of this bot " +
		"(your answer, or the bot's own status or notice). The part they quoted:]\n> read-write mutex"
	if !strings.Contains(texts, want) {
		t.Errorf("the model did not get the quoted reply; user texts:\n%s", texts)
	}
}
