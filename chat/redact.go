package chat

import "github.com/untether/untether/engine"

// redactEvent removes secrets from what an event carries to a view: the
// titles of actions, their details, Claude's text, the answer and error
// texts, the stderr tail.
func (c *Core) redactEvent(ev engine.Event) engine.Event {
	switch e := ev.(type) {
	case engine.ActionStarted:
		e.Title = c.redact(e.Title)
		return e
	case engine.ActionCompleted:
		e.Detail = c.redact(e.Detail)
		return e
	case engine.Text:
		e.Text = c.redact(e.Text)
		return e
	case engine.TurnCompleted:
		e.Result, e.ErrorText = c.redact(e.Result), c.redact(e.ErrorText)
		return e
	case engine.Exited:
		e.StderrTail = c.redact(e.StderrTail)
		return e
	}
	return ev
}
