package view

import (
	"cmp"
	"slices"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
)

// ProjectRulesNote tells the chat that the project's own settings let
// Claude act without asking: the bot's approvals will not see those tool
// calls. Each file is named with its rules, written in full with invisible
// characters shown. What to do comes first, then the most dangerous rules
// (a file that could not be read, commands, writes, MCP tools, fetches,
// directories, reads outside the project), so a list cut to one message
// keeps what matters and says how many it left out.
func ProjectRulesNote(n chat.NoteProjectRules) string {
	var b strings.Builder
	b.WriteString("⚠ This project's own settings let Claude act here without asking you. ")
	b.WriteString("The bot's approvals will not see these tool calls. To stop them, remove the entries from ")
	b.WriteString("<code>permissions.allow</code> and <code>permissions.additionalDirectories</code> in the file named ")
	b.WriteString("(or delete the file), then /new.\n")
	b.WriteString("Directory: <code>" + esc(Visible(n.Dir)) + "</code>")
	rules := slices.Clone(n.Rules)
	slices.SortStableFunc(rules, func(x, y engine.ProjectRule) int { return cmp.Compare(ruleDanger(x), ruleDanger(y)) })
	var files []string
	for _, r := range rules {
		if !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	// Room is kept for the line saying how many were left out.
	const reserve = 120
	shown := 0
files:
	for _, f := range files {
		head := "\n\nIn <code>" + esc(Visible(f)) + "</code>:"
		for _, r := range rules {
			if r.File != f {
				continue
			}
			line := "\n• " + ruleLine(r)
			if units(b.String()+head+line)+reserve > MaxMessage {
				break files
			}
			b.WriteString(head + line)
			head = ""
			shown++
		}
	}
	if left := len(rules) - shown; left > 0 {
		b.WriteString("\n\n…and " + plural(left, "more entry", "more entries") + " not shown: open the project's <code>.claude/settings.local.json</code> files to see them all.")
	}
	return fit(b.String())
}

// ruleLine is one entry of the note.
func ruleLine(r engine.ProjectRule) string {
	switch {
	case r.Unread:
		return "could not be read: Claude may still apply the rules in it"
	case r.Dir:
		return "work in directory <code>" + esc(Visible(r.Rule)) + "</code>"
	}
	return "allow <code>" + esc(Visible(r.Rule)) + "</code>"
}

// ruleDanger ranks an entry for the note, most dangerous first.
func ruleDanger(r engine.ProjectRule) int {
	if r.Unread {
		return 0
	}
	if r.Dir {
		return 5
	}
	name, _, _ := strings.Cut(strings.TrimSpace(r.Rule), "(")
	switch name = strings.TrimSpace(name); {
	case name == "Bash" || name == "PowerShell":
		return 1
	case name == "Write" || name == "Edit" || name == "MultiEdit" || name == "NotebookEdit":
		return 2
	case strings.HasPrefix(name, "mcp__"):
		return 3
	case name == "Read" || name == "Glob" || name == "Grep" || name == "LS" || name == "NotebookRead":
		return 6
	}
	return 4 // WebFetch, and any tool the bot does not know
}
