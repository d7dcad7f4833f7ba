package telegram

import (
	"github.com/untether/untether/telegram/view"
)

// Secrets never reach a chat. Every text is redacted twice: here, as it
// arrives from Claude and before the view cuts it to fit a message (a
// secret straddling a cut would leave pieces no redactor recognises), and
// in send, edit and answerCallback, the only ways out, as a backstop for
// every text the bot composes.

// redact removes every secret the bot knows (the token, Config.Secrets)
// from s.
func (b *Bot) redact(s string) string { return b.redactor.String(s) }

// redactOutcome redacts the answers an outcome lists.
func (b *Bot) redactOutcome(o view.Outcome) view.Outcome {
	if o.Answers != nil {
		answers := make(map[string]string, len(o.Answers))
		for q, a := range o.Answers {
			answers[b.redact(q)] = b.redact(a)
		}
		o.Answers = answers
	}
	o.Reason = b.redact(o.Reason)
	return o
}

// redactKeyboard redacts button labels (question options come from
// Claude); callback data is the bot's own.
func (api *tgAPI) redactKeyboard(kb view.Keyboard) view.Keyboard {
	if kb == nil {
		return nil
	}
	out := make(view.Keyboard, len(kb))
	for i, row := range kb {
		out[i] = make([]view.Button, len(row))
		for j, btn := range row {
			btn.Text = api.redact(btn.Text)
			out[i][j] = btn
		}
	}
	return out
}
