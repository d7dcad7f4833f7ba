package view

import (
	"slices"
	"strings"

	"github.com/untether/untether/chat"
)

// ProjectRulesNote tells the chat that the project's own settings let
// Claude act without asking: the bot's approvals will not see those tool
// calls. Each file is named with its rules, written in full with invisible
// characters shown; what to do comes first, so a cut list still says it.
func ProjectRulesNote(n chat.NoteProjectRules) string {
	var b strings.Builder
	b.WriteString("⚠ This project's own settings let Claude act here without asking you. ")
	b.WriteString("The bot's approvals will not see these tool calls. To stop them, remove the entries from ")
	b.WriteString("<code>permissions.allow</code> and <code>permissions.additionalDirectories</code> in the file named ")
	b.WriteString("(or delete the file), then /new.\n")
	b.WriteString("Directory: <code>" + esc(Visible(n.Dir)) + "</code>")
	var files []string
	for _, r := range n.Rules {
		if !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	for _, f := range files {
		b.WriteString("\n\nIn <code>" + esc(Visible(f)) + "</code>:")
		for _, r := range n.Rules {
			if r.File != f {
				continue
			}
			what := "allow "
			if r.Dir {
				what = "work in directory "
			}
			b.WriteString("\n• " + what + "<code>" + esc(Visible(r.Rule)) + "</code>")
		}
	}
	return fit(b.String())
}
