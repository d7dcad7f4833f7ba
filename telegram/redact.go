package telegram

import (
	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
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

// redactEvent removes secrets from the texts of ev that the bot shows.
// Approval requests are left whole: their input goes back to Claude, and
// the prompt is redacted when it is shown (redactPrompt).
func (b *Bot) redactEvent(ev engine.Event) engine.Event {
	switch e := ev.(type) {
	case engine.ActionStarted:
		e.Title = b.redact(e.Title)
		return e
	case engine.ActionCompleted:
		e.Detail = b.redact(e.Detail)
		return e
	case engine.Text:
		e.Text = b.redact(e.Text)
		return e
	case engine.TurnCompleted:
		e.Result, e.ErrorText = b.redact(e.Result), b.redact(e.ErrorText)
		return e
	case engine.Exited:
		e.StderrTail = b.redact(e.StderrTail)
		return e
	}
	return ev
}

// redactPrompt returns a copy of p fit to show: everything in it that came
// from Claude, redacted. The broker keeps p itself.
func (b *Bot) redactPrompt(p *approvals.Prompt) *approvals.Prompt {
	if p == nil {
		return nil
	}
	cp := *p
	cp.Request.Input = b.redactor.JSON(p.Request.Input)
	cp.Request.Description = b.redact(p.Request.Description)
	cp.Request.BlockedPath = b.redact(p.Request.BlockedPath)
	cp.Plan, cp.PlanFile = b.redact(p.Plan), b.redact(p.PlanFile)
	cp.AlwaysAllow = make([]string, len(p.AlwaysAllow))
	for i, l := range p.AlwaysAllow {
		cp.AlwaysAllow[i] = b.redact(l)
	}
	cp.Actions = make([]approvals.Action, len(p.Actions))
	for i, a := range p.Actions {
		a.Label = b.redact(a.Label)
		cp.Actions[i] = a
	}
	cp.Question = b.redactQuestion(p.Question)
	return &cp
}

// redactQuestion returns a copy of q with Claude's texts and the answers
// given so far redacted.
func (b *Bot) redactQuestion(q *approvals.QuestionView) *approvals.QuestionView {
	if q == nil {
		return nil
	}
	cp := *q
	cp.Question, cp.Header = b.redact(q.Question), b.redact(q.Header)
	cp.Options = make([]approvals.OptionView, len(q.Options))
	for i, o := range q.Options {
		o.Label, o.Description = b.redact(o.Label), b.redact(o.Description)
		cp.Options[i] = o
	}
	cp.Answered = make([]approvals.Answer, len(q.Answered))
	for i, a := range q.Answered {
		a.Question, a.Answer = b.redact(a.Question), b.redact(a.Answer)
		cp.Answered[i] = a
	}
	return &cp
}

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
