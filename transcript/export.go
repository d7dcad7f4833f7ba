package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/untether/untether/human"
)

// The conversation as a file: /export in Telegram and the web view's
// download are this one helper, so both give the same file.

// Format is an export's kind of file.
type Format string

const (
	Markdown Format = "md"   // prompts, tools in short, answers, a line of cost each
	JSON     Format = "json" // the raw transcript ([]Turn)
)

// ParseFormat reads an export's format as a user names it: "" or
// "markdown" is Markdown.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "md", "markdown":
		return Markdown, true
	case "json":
		return JSON, true
	}
	return "", false
}

// File is a conversation as a file to download.
type File struct {
	Name  string // conversation-2026-01-02-1504.md
	Data  []byte
	Turns int // 0: nothing is recorded (and Data is empty)
}

// Export is conversation key's transcript as a file of format f, named
// for now. Its texts are redacted like every read of the log.
func (l *Log) Export(ctx context.Context, key string, f Format, now time.Time) (File, error) {
	turns, err := l.Turns(ctx, key)
	if err != nil {
		return File{}, err
	}
	out := File{Name: "conversation-" + now.Format("2006-01-02-1504") + "." + string(f), Turns: len(turns)}
	switch {
	case len(turns) == 0:
	case f == JSON:
		if out.Data, err = json.MarshalIndent(turns, "", "  "); err != nil {
			return File{}, fmt.Errorf("encode the transcript of %q: %w", key, err)
		}
	default:
		out.Data = []byte(MarkdownOf(turns))
	}
	return out, nil
}

// MarkdownOf is the conversation as Markdown: each turn's prompt, the tools
// it ran in short, its answer and a line of cost and outcome.
func MarkdownOf(turns []Turn) string {
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
		b.WriteString("\n_" + Footer(t) + "_\n")
	}
	return b.String()
}

// Footer is a turn's line of outcome, cost, tokens and time.
func Footer(t Turn) string {
	parts := []string{t.Outcome.Words()}
	if t.CostUSD > 0 {
		parts = append(parts, human.Dollars(t.CostUSD))
	}
	if t.InTokens > 0 || t.OutTokens > 0 {
		parts = append(parts, human.Count(t.InTokens)+" in / "+human.Count(t.OutTokens)+" out")
	}
	if !t.Ended.IsZero() && !t.Started.IsZero() {
		parts = append(parts, human.Elapsed(t.Ended.Sub(t.Started)))
	}
	if t.RanAnyway {
		parts = append(parts, "ran past a spending limit")
	}
	return strings.Join(parts, " · ")
}

// Words say how a turn ended, as the export and the web view show it.
func (o Outcome) Words() string {
	switch o {
	case Done:
		return "answered"
	case BudgetStop:
		return "stopped at max_turn_usd"
	case LimitStop:
		return "stopped at a usage limit"
	case Refused:
		return "not run: daily budget reached"
	case Cancelled:
		return "cancelled"
	case Stopped:
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
