package approvals

import "github.com/untether/untether/redact"

// What a frontend shows of a prompt leaves out every secret the bot
// knows; the broker keeps the original, which goes back to the agent.

// Redacted returns a copy of p fit to show: everything in it that came
// from Claude, redacted. The broker keeps p itself.
func (p *Prompt) Redacted(r *redact.Redactor) *Prompt {
	if p == nil {
		return nil
	}
	cp := *p
	cp.Request.Input = r.JSON(p.Request.Input)
	cp.Request.Description = r.String(p.Request.Description)
	cp.Request.BlockedPath = r.String(p.Request.BlockedPath)
	cp.Plan, cp.PlanFile = r.String(p.Plan), r.String(p.PlanFile)
	cp.AlwaysAllow = make([]string, len(p.AlwaysAllow))
	for i, l := range p.AlwaysAllow {
		cp.AlwaysAllow[i] = r.String(l)
	}
	cp.Actions = make([]Action, len(p.Actions))
	for i, a := range p.Actions {
		a.Label = r.String(a.Label)
		cp.Actions[i] = a
	}
	cp.Question = p.Question.Redacted(r)
	return &cp
}

// Redacted returns a copy of q with Claude's texts and the answers
// given so far redacted.
func (q *QuestionView) Redacted(r *redact.Redactor) *QuestionView {
	if q == nil {
		return nil
	}
	cp := *q
	cp.Question, cp.Header = r.String(q.Question), r.String(q.Header)
	cp.Options = make([]OptionView, len(q.Options))
	for i, o := range q.Options {
		o.Label, o.Description = r.String(o.Label), r.String(o.Description)
		cp.Options[i] = o
	}
	cp.Answered = make([]Answer, len(q.Answered))
	for i, a := range q.Answered {
		a.Question, a.Answer = r.String(a.Question), r.String(a.Answer)
		cp.Answered[i] = a
	}
	return &cp
}
