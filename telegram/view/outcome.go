package view

import (
	"sort"
	"strings"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/telegram/render"
)

// OutcomeExpired marks a prompt whose request died with the bot (found
// after a restart); approvals never reports it.
const OutcomeExpired approvals.Outcome = "expired"

// Outcome is what became of a prompt, for editing its message.
type Outcome struct {
	Kind     approvals.Outcome
	By       string // display name of who decided; "" leaves out "by …"
	Reason   string // for cancelled: why, e.g. "/cancel" or "session closed"
	Question bool   // the prompt was a question: denied reads "Dismissed"
	// Answers are the question answers (approvals.Result.Answers), listed
	// under "Answered", sorted by question for a stable text.
	Answers map[string]string
	// Web: the press came from the web view.
	Web bool
}

const (
	maxByUnits      = 120
	maxReasonUnits  = 300
	maxAnswerUnits  = 300
	maxAnswersShown = 8
)

// OutcomeLine is the line OutcomeText appends, e.g. "✅ Approved by Alice".
func OutcomeLine(o Outcome) string {
	by := ""
	if b := oneLine(o.By); b != "" {
		by = " by " + escHead(b, maxByUnits)
	}
	if o.Web {
		by += " on the web"
	}
	switch o.Kind {
	case approvals.OutcomeApproved:
		return "✅ <b>Approved</b>" + by
	case approvals.OutcomeDenied:
		if o.Question {
			return "❌ <b>Dismissed</b>" + by
		}
		return "❌ <b>Denied</b>" + by
	case approvals.OutcomeAlways:
		return "🔓 <b>Always allowed</b>" + by
	case approvals.OutcomeOutline:
		return "📋 <b>Outline requested</b>" + by
	case approvals.OutcomeAnswered:
		return "💬 <b>Answered</b>" + by + answerLines(o.Answers)
	case approvals.OutcomeTimedOut:
		return "⌛ <b>Timed out</b> — denied"
	case approvals.OutcomeCancelled:
		if r := oneLine(o.Reason); r != "" {
			return "✖ <b>Cancelled</b> — " + escHead(r, maxReasonUnits)
		}
		return "✖ <b>Cancelled</b>"
	case approvals.OutcomeWithdrawn:
		return "↩ <b>Withdrawn</b> — Claude took the request back; nothing was run"
	case approvals.OutcomeFailed:
		return "⚠️ <b>Could not send the answers</b> — denied" + by
	case OutcomeExpired:
		return "⏹ <b>Expired</b> (bot restarted)"
	}
	line := "• " + escHead(oneLine(string(o.Kind)), 60) + by
	if r := oneLine(o.Reason); r != "" {
		line += " — " + escHead(r, maxReasonUnits)
	}
	return line
}

func answerLines(answers map[string]string) string {
	qs := make([]string, 0, len(answers))
	for q := range answers {
		qs = append(qs, q)
	}
	sort.Strings(qs)
	var b strings.Builder
	for i, q := range qs {
		if i == maxAnswersShown {
			b.WriteString("\n• …")
			break
		}
		b.WriteString("\n• <i>" + escHead(oneLine(q), maxAnswerUnits/2) + "</i> → " + escHead(oneLine(answers[q]), maxAnswerUnits/2))
	}
	return b.String()
}

// OutcomeText is the prompt message edited after the fact: original (the
// HTML that was sent, e.g. from PromptText; for a plan, its last part)
// followed by OutcomeLine. The original is cut, keeping valid HTML, when
// both would not fit one message; an empty original gives the line alone,
// and one that is not valid Telegram HTML is shown as plain text.
// Send it without a keyboard to remove the buttons.
func OutcomeText(original string, o Outcome) string {
	line := OutcomeLine(o)
	original = clean(original)
	if render.Validate(original) != nil {
		original = render.Escape(original) // not HTML after all: show it as text
	}
	if strings.TrimSpace(original) == "" {
		return fit(line)
	}
	const sep = "\n\n"
	if units(original)+len(sep)+units(line) <= MaxMessage {
		return original + sep + line
	}
	cut := "\n" + ellipsis
	parts := render.Split(original, MaxMessage-len(sep)-units(line)-units(cut))
	if len(parts) == 0 {
		return fit(line)
	}
	return fit(parts[0] + cut + sep + line)
}

// AutoNotice is a short message about a request answered without asking
// (e.g. the plan cooldown denying ExitPlanMode): reason in a few words
// (approvals.Submission.Reason) and the message written to Claude, if any.
func AutoNotice(reason, message string) string {
	r := oneLine(reason)
	if r == "" {
		r = "automatic rule"
	}
	out := "🤖 <b>Answered automatically</b> — " + escHead(r, maxReasonUnits)
	if m := strings.TrimSpace(clean(message)); m != "" {
		out += "\n<i>Told Claude:</i> " + escHead(m, 2000)
	}
	return fit(out)
}

// Redacted is o with every secret r knows removed from the answers it
// lists and its reason.
func (o Outcome) Redacted(r *redact.Redactor) Outcome {
	if o.Answers != nil {
		answers := make(map[string]string, len(o.Answers))
		for q, a := range o.Answers {
			answers[r.String(q)] = r.String(a)
		}
		o.Answers = answers
	}
	o.Reason = r.String(o.Reason)
	return o
}

// Redacted is kb with every secret r knows removed from its labels
// (question options come from Claude); callback data is the bot's own.
func (kb Keyboard) Redacted(r *redact.Redactor) Keyboard {
	if kb == nil {
		return nil
	}
	out := make(Keyboard, len(kb))
	for i, row := range kb {
		out[i] = make([]Button, len(row))
		for j, btn := range row {
			btn.Text = r.String(btn.Text)
			out[i][j] = btn
		}
	}
	return out
}
