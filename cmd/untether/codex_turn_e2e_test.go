package main

import (
	"strings"
	"testing"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/telegram/view"
)

// "⚡ Send now" with the real Codex: a message sent while Codex waits for
// an approval is queued with the button; pressed, it goes into the running
// turn (turn/steer), the note says so, and after Approve the one answer
// covers it: the model's second request carries it, and no turn of its
// own runs.
func TestCodexBotSendNowSteers(t *testing.T) {
	e, api, _ := realCodex(t, nil, true, "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "run: echo a > a.txt")
	prompt := e.awaitButtons(t, "Approve", "a.txt", 0)
	e.tg.SendMessage(e.user, e.chat, "also mind the bananas")
	note := e.awaitButtons(t, "⚡ Send now", "Queued", prompt.ID)
	if got := e.press(t, note, "⚡ Send now"); got != view.ToastSteered {
		t.Fatalf("toast = %q", got)
	}
	e.press(t, prompt, "Approve")
	e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "echo: also mind the bananas") })
	e.tg.Await(e2eWait, "the note saying it went into the turn", func() bool {
		m, _ := e.tg.Message(e.chat.ID, note.ID)
		return strings.Contains(m.Text, "Went into the running turn")
	})
	reqs := api.Requests()
	if len(reqs) != 2 || !reqs[1].Carries("bananas") {
		t.Errorf("the model got %d requests, want 2, the second with the steered text", len(reqs))
	}
}

// Codex's request_user_input with the real Codex: the question shows with
// its options as buttons, a press answers it, and the model gets the
// answer under the question's id.
func TestCodexBotQuestionButtons(t *testing.T) {
	e, _, _ := realCodex(t, func(r codextest.Request) codextest.Reply {
		if out, ok := r.CallOutput(); ok {
			return codextest.Reply{Text: "done: " + out}
		}
		return codextest.Reply{Call: &codextest.Call{Name: "request_user_input", Arguments: `{"questions":[{"id":"color","header":"Color",` +
			`"question":"Which color?","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cool"}]}]}`}}
	}, true, "")
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "pick a color")
	q := e.awaitButtons(t, "Blue", "Which color?", 0)
	e.press(t, q, "Blue")
	e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, `done:`) && answerHas(m, `"color":{"answers":["Blue"]}`)
	})
}
