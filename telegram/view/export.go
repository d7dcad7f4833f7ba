package view

import (
	"fmt"
	"strings"
	"time"

	"github.com/untether/untether/transcript"
)

// /export: the conversation so far as a file.

const (
	// ExportUsage answers /export with another argument.
	ExportUsage = "Send <code>/export</code> for the conversation as a Markdown file, <code>/export json</code> for its raw transcript."
	// ExportEmpty: nothing recorded yet.
	ExportEmpty = "Nothing to export yet: no turn of this chat is recorded."
	// ExportFailed: the transcript could not be read or sent.
	ExportFailed = "The conversation could not be exported: see the bot's log."
)

// ExportName is the export file's name for a chat, at now, with ext
// ("md" or "json").
func ExportName(now time.Time, ext string) string {
	return "conversation-" + now.Format("2006-01-02-1504") + "." + ext
}

// ExportCaption is the caption under the file.
func ExportCaption(turns int) string {
	return fmt.Sprintf("The conversation so far: %s (at most the last %d are kept).", plural(turns, "turn", "turns"), transcript.MaxTurns)
}

// ExportMarkdown is the conversation as Markdown: each turn's prompt, the
// tools it ran in short, its answer and a line of cost and outcome.
func ExportMarkdown(turns []transcript.Turn) string {
	var b strings.Builder
	b.WriteString("# Conversation\n")
	for i, t := range turns {
		fmt.Fprintf(&b, "\n## Turn %d · %s\n\n", i+1, t.Started.Local().Format("2006-01-02 15:04"))
		b.WriteString("**Prompt**\n\n")
		b.WriteString(quoteBlock(t.Prompt))
		if len(t.Tools) > 0 {
			b.WriteString("\n**Tools**\n\n")
			for _, x := range t.Tools {
				mark := ""
				if x.Failed {
					mark = " ✗"
				}
				fmt.Fprintf(&b, "- %s: `%s`%s\n", x.Kind, strings.ReplaceAll(x.Input, "`", "'"), mark)
			}
		}
		if t.Answer != "" {
			b.WriteString("\n**Answer**\n\n")
			b.WriteString(strings.TrimSpace(t.Answer) + "\n")
		}
		if t.Error != "" {
			b.WriteString("\n**Error**\n\n")
			b.WriteString(quoteBlock(t.Error))
		}
		b.WriteString("\n_" + exportFooter(t) + "_\n")
	}
	return b.String()
}

// exportFooter is a turn's line of outcome, cost, tokens and time.
func exportFooter(t transcript.Turn) string {
	parts := []string{exportOutcome(t.Outcome)}
	if t.CostUSD > 0 {
		parts = append(parts, Dollars(t.CostUSD))
	}
	if t.InTokens > 0 || t.OutTokens > 0 {
		parts = append(parts, formatCount(t.InTokens)+" in / "+formatCount(t.OutTokens)+" out")
	}
	if !t.Ended.IsZero() && !t.Started.IsZero() {
		parts = append(parts, FormatElapsed(t.Ended.Sub(t.Started)))
	}
	if t.RanAnyway {
		parts = append(parts, "ran past a spending limit")
	}
	return strings.Join(parts, " · ")
}

func exportOutcome(o transcript.Outcome) string {
	switch o {
	case transcript.Done:
		return "answered"
	case transcript.BudgetStop:
		return "stopped at max_turn_usd"
	case transcript.LimitStop:
		return "stopped at a usage limit"
	case transcript.Refused:
		return "not run: daily budget reached"
	case transcript.Cancelled:
		return "cancelled"
	case transcript.Stopped:
		return "interrupted: the bot stopped"
	}
	return "failed"
}

// quoteBlock is s as a Markdown quote, every line of it.
func quoteBlock(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "> (no text)\n"
	}
	return "> " + strings.ReplaceAll(s, "\n", "\n> ") + "\n"
}
