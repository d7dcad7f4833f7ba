package view

import (
	"strconv"
	"strings"

	"github.com/untether/untether/approvals"
)

// Limits of question prompts.
const (
	maxButtonRunes     = 60 // Telegram cuts long button texts anyway
	maxOptionButtons   = 90 // Telegram allows 100 buttons per keyboard
	maxQuestionUnits   = 1500
	maxHeaderUnits     = 150
	maxAnsweredUnits   = 300 // one earlier question and its answer
	maxOptionUnits     = 450 // label and description of one option
	maxAnsweredShown   = 5
	minOptionDescUnits = 40
)

// QuestionText renders the question to answer now: header, "(2/3)" when
// there are several, earlier answers, the question, the options with their
// descriptions (✓ marks selected ones), and what to do next.
func QuestionText(q *approvals.QuestionView) string { return QuestionTextIn(q, false) }

// QuestionTextIn is QuestionText for a group when group is set: there the
// bot reads only messages addressed to it, so a typed answer must be a reply.
func QuestionTextIn(q *approvals.QuestionView, group bool) string {
	if q == nil {
		return "❓ <i>(no question)</i>"
	}
	head := "❓ <b>" + escHead(oneLine(firstNonEmpty(q.Header, "Question")), maxHeaderUnits) + "</b>"
	if q.Total > 1 {
		head += " (" + strconv.Itoa(q.Index+1) + "/" + strconv.Itoa(q.Total) + ")"
	}
	var top []string
	top = append(top, head)
	answered := q.Answered
	if len(answered) > maxAnsweredShown {
		answered = answered[len(answered)-maxAnsweredShown:]
	}
	for _, a := range answered {
		top = append(top, "✓ <i>"+escHead(oneLine(a.Question), maxAnsweredUnits/2)+"</i> → "+escHead(oneLine(a.Answer), maxAnsweredUnits/2))
	}
	question := escHead(strings.TrimSpace(clean(q.Question)), maxQuestionUnits)

	var instr string
	switch {
	case q.AwaitingText && group:
		instr = "✏️ <b>Reply to this message with your answer.</b>"
	case q.AwaitingText:
		instr = "✏️ <b>Send your answer as a message.</b>"
	case q.MultiSelect:
		instr = "<i>Choose one or more, then press Done — or Other to type an answer.</i>"
	default:
		instr = "<i>Choose an option, or Other to type an answer.</i>"
	}

	fixed := strings.Join(top, "\n") + "\n\n" + question + "\n\n" + instr
	options := optionLines(q.Options, MaxMessage-units(fixed)-len("\n\n"))
	out := strings.Join(top, "\n") + "\n\n" + question
	if options != "" {
		out += "\n\n" + options
	}
	return fit(out + "\n\n" + instr)
}

// optionLines lists the options within budget units, sharing it fairly.
func optionLines(opts []approvals.OptionView, budget int) string {
	if len(opts) == 0 || budget <= 0 {
		return ""
	}
	per := min(maxOptionUnits, budget/len(opts)-1)
	var lines []string
	used := 0
	for i, o := range opts {
		mark := strconv.Itoa(i+1) + "."
		if o.Selected {
			mark = "✓"
		}
		label := oneLine(o.Label)
		labelUnits := max(per/3, 10)
		line := mark + " <b>" + escHead(label, labelUnits) + "</b>"
		if d := oneLine(o.Description); d != "" {
			if room := per - units(line) - len(" — "); room >= minOptionDescUnits {
				line += " — " + escHead(d, room)
			}
		}
		if used+units(line)+1 > budget {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, line)
		used += units(line) + 1
	}
	return strings.Join(lines, "\n")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}

// Button labels of question prompts.
const (
	LabelDone    = "✅ Done"
	LabelOther   = "✏️ Other…"
	LabelDismiss = "❌ Dismiss"
)

// QuestionKeyboard has one row per option (label, "✓ " in front when
// selected), then Done for multi-select, then Other and Dismiss (which
// denies all the questions). Callback data is prefix + token.
func QuestionKeyboard(q *approvals.QuestionView, prefix string) Keyboard {
	if q == nil {
		return nil
	}
	var kb Keyboard
	for i, o := range q.Options {
		if i == maxOptionButtons {
			break
		}
		label := clip(oneLine(o.Label), maxButtonRunes)
		if label == "" {
			label = strconv.Itoa(i + 1)
		}
		if o.Selected {
			label = "✓ " + label
		}
		kb = append(kb, []Button{{Text: label, Data: prefix + o.Token}})
	}
	if q.MultiSelect && q.DoneToken != "" {
		kb = append(kb, []Button{{Text: LabelDone, Data: prefix + q.DoneToken, Style: StyleSuccess}})
	}
	var last []Button
	if q.OtherToken != "" {
		last = append(last, Button{Text: LabelOther, Data: prefix + q.OtherToken})
	}
	if q.DenyToken != "" {
		last = append(last, Button{Text: LabelDismiss, Data: prefix + q.DenyToken, Style: StyleDanger})
	}
	if len(last) > 0 {
		kb = append(kb, last)
	}
	return kb
}
