package view

import (
	"html"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/human"
	"github.com/untether/untether/telegram/render"
)

// Footer is the turn's result line under the final answer.
type Footer struct {
	Cost      float64 // USD this turn cost (not the session's running total); 0 hides it
	Duration  time.Duration
	Turns     int // 0 hides it
	InTokens  int // both 0 hide the tokens
	OutTokens int
	OK        bool // false marks the turn as ended with an error
	// ContextTokens of ContextWindow: shown once the context is 70% full.
	ContextTokens, ContextWindow int
	// Changes is what the turn changed in the working directory's git
	// repository, measured from the repository; zero hides it.
	Changes ChangeStat
	// NoUndo says the changes cannot be undone (made by shell commands).
	NoUndo bool
	// Overrun is the spending limits the turn ran past (Run anyway).
	Overrun chat.Overrun
	// Desk is the shell command that continues the session at the desk,
	// shown on a line of its own (with /verbose); "" hides it.
	Desk string
	// Engine names the agent that answered; "" (the bot offers one
	// engine) leaves it out.
	Engine string
}

// FinalFooter renders f as one italic line, e.g.
// "<i>$0.0123 · 42s · 3 turns · 12.3k in / 1.2k out · 3 files changed, +40 −12</i>";
// a failed turn starts with "✗ error". The desk command, when given,
// follows on a line of its own.
func FinalFooter(f Footer) string {
	var parts []string
	if !f.OK {
		parts = append(parts, "✗ error")
	}
	if f.Engine != "" {
		parts = append(parts, html.EscapeString(EngineTitle(f.Engine)))
	}
	if f.Cost > 0 {
		parts = append(parts, Dollars(f.Cost))
	}
	parts = append(parts, FormatElapsed(f.Duration))
	if f.Turns > 0 {
		parts = append(parts, plural(f.Turns, "turn", "turns"))
	}
	if f.InTokens > 0 || f.OutTokens > 0 {
		parts = append(parts, formatCount(f.InTokens)+" in / "+formatCount(f.OutTokens)+" out")
	}
	if c := contextPart(f.ContextTokens, f.ContextWindow); c != "" {
		parts = append(parts, c)
	}
	if c := ChangeLine(f.Changes); c != "" {
		parts = append(parts, c)
	}
	if f.NoUndo {
		parts = append(parts, NoUndoPart)
	}
	if o := OverrunPart(f.Overrun); o != "" {
		parts = append(parts, o)
	}
	out := "<i>" + strings.Join(parts, " · ") + "</i>"
	if d := DeskLine(f.Desk); d != "" {
		out += "\n" + d
	}
	return out
}

// formatCount renders token counts like "999", "12.3k", "1.2M".
func formatCount(n int) string { return human.Count(n) }

// NoAnswer is shown when a turn ends without any text.
const NoAnswer = "<i>(no text answer)</i>"

// FinalParts renders the final answer (Claude's Markdown) into message
// parts within l (the zero Limits means render.Message: Telegram's visible
// length, markup kept well under its unpublished bounds), with footer
// (already HTML, e.g. from FinalFooter; may be empty) appended to the last
// part after a blank line, or sent as a part of its own when it does not fit
// there. An empty answer gives NoAnswer plus the footer.
//
// Answers are cut by what Telegram counts rather than by HTML length: the
// markup of a typical answer adds about a quarter, and counting it would
// turn many two-message answers into three, each costing a third of the
// chat's budget of 3 messages in 3 seconds.
func FinalParts(markdown, footer string, l render.Limits) []string {
	if l == (render.Limits{}) {
		l = render.Message
	}
	parts := render.SplitWithin(render.Markdown(clean(markdown)), l)
	if len(parts) == 0 {
		parts = []string{NoAnswer}
	}
	if footer == "" {
		return parts
	}
	last := parts[len(parts)-1] + "\n\n" + footer
	if render.Fits(last, l) {
		parts[len(parts)-1] = last
		return parts
	}
	return append(parts, render.SplitWithin(footer, l)...)
}

// TurnError describes a turn that failed outside Claude's own answer.
// Callers redact secrets first; everything is escaped here.
type TurnError struct {
	What       string // e.g. "Claude exited unexpectedly", "claude was not found"
	Detail     string // one or two sentences
	Hint       string // what the user can do
	StderrTail string // the process's last stderr output
}

// Budgets of the error message pieces, in escaped UTF-16 units.
const (
	errWhatUnits   = 300
	errDetailUnits = 1200
	errHintUnits   = 800
	errStderrRunes = 1500 // characters of stderr shown, when they fit
)

// tailUnits is what the last n runes of s cost once escaped.
func tailUnits(s string, n int) int {
	total := 0
	for i := len(s); i > 0 && n > 0; n-- {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		total += escUnits(r)
		i -= size
	}
	return total
}

// ErrorText renders e: a bold headline, the detail, a hint, and the end of
// stderr in a <pre> block (its last 1500 characters at most, fewer when
// escaping makes them too long; cut at a line start when possible).
func ErrorText(e TurnError) string {
	what := oneLine(e.What)
	if what == "" {
		what = "Something went wrong"
	}
	var b strings.Builder
	b.WriteString("⚠️ <b>" + escHead(what, errWhatUnits) + "</b>")
	if d := strings.TrimSpace(clean(e.Detail)); d != "" {
		b.WriteString("\n" + escHead(d, errDetailUnits))
	}
	if h := strings.TrimSpace(clean(e.Hint)); h != "" {
		b.WriteString("\n\n💡 " + escHead(h, errHintUnits))
	}
	if t := strings.Trim(clean(e.StderrTail), "\n"); strings.TrimSpace(t) != "" {
		const open, close = "\n\n<i>stderr:</i>\n<pre>", "</pre>"
		room := MaxMessage - units(b.String()) - units(open+close)
		b.WriteString(open + escTail(t, min(room, tailUnits(t, errStderrRunes))) + close)
	}
	return fit(b.String())
}

// FinalRich renders an answer that reads better as a rich message (a
// table, a task list, a heading, a long code block: render.IsRich) as the
// HTML of one, footer (FinalFooter's Telegram HTML) last. It reports false
// when the answer is not rich or a rich message could not hold it (the
// documented limits): then FinalParts is the answer.
func FinalRich(result, footer string) (string, bool) {
	if !render.IsRich(result) {
		return "", false
	}
	html := render.Rich(clean(result))
	if strings.TrimSpace(html) == "" {
		return "", false
	}
	for _, line := range strings.Split(footer, "\n") {
		if strings.TrimSpace(line) != "" {
			html += "<p>" + line + "</p>"
		}
	}
	return html, render.FitsRich(html)
}
