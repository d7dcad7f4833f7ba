package view

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
)

func TestProjectRulesNote(t *testing.T) {
	local := "/home/o/repo/.claude/settings.local.json"
	top := "/home/o/.claude/settings.local.json"
	n := chat.NoteProjectRules{Dir: "/home/o/repo", Rules: []engine.ProjectRule{
		{Rule: "Bash", File: local}, {Rule: "Bash(curl\u202e *)", File: local},
		{Rule: "/home/o/.ssh", Dir: true, File: local}, {Rule: "Write<b>", File: top},
	}}
	got, ok := NoteText(n, time.Now())
	if !ok || got != ProjectRulesNote(n) {
		t.Fatalf("NoteText = %q, %v", got, ok)
	}
	for _, want := range []string{"&lt;U+202E&gt;", "Write&lt;b&gt;", "work in directory <code>/home/o/.ssh</code>", "approvals will not see"} {
		if !strings.Contains(got, want) {
			t.Errorf("note lacks %q:\n%s", want, got)
		}
	}
	golden(t, "project_rules", got)
}

// TestProjectRulesNoteOrderAndCut: the most dangerous entries come first
// (a file that could not be read, commands, writes, MCP tools, fetches,
// directories, reads outside), and a list too long for one message says
// how many entries it left out.
func TestProjectRulesNoteOrderAndCut(t *testing.T) {
	local := "/home/o/repo/.claude/settings.local.json"
	top := "/home/o/.claude/settings.local.json"
	n := chat.NoteProjectRules{Dir: "/home/o/repo", Rules: []engine.ProjectRule{
		{Rule: "Read(~/.ssh/*)", File: local}, {Rule: "/srv", Dir: true, File: local},
		{Rule: "WebFetch", File: local}, {Rule: "mcp__x__y", File: local}, {Rule: "Edit", File: local},
		{Rule: "Bash(git *)", File: local}, {File: top, Unread: true},
	}}
	got := ProjectRulesNote(n)
	order := []string{top, "could not be read", local, "Bash(git *)", "Edit", "mcp__x__y", "WebFetch", "/srv", "Read(~/.ssh/*)"}
	at := -1
	for _, w := range order {
		i := strings.Index(got, w)
		if i <= at {
			t.Fatalf("%q is not after the one before it (order %q):\n%s", w, order, got)
		}
		at = i
	}
	golden(t, "project_rules_order", got)

	var many []engine.ProjectRule
	for i := range 400 {
		many = append(many, engine.ProjectRule{Rule: "Read(//srv/" + strings.Repeat("x", 20) + "/" + string(rune('a'+i%26)) + ")", File: local})
	}
	many = append(many, engine.ProjectRule{Rule: "Bash", File: top})
	got = ProjectRulesNote(chat.NoteProjectRules{Dir: "/home/o/repo", Rules: many})
	shown := strings.Count(got, "\n• ")
	if units(got) > MaxMessage || !strings.Contains(got, "allow <code>Bash</code>") || shown == 0 || shown == len(many) {
		t.Fatalf("cut list: %d entries shown of %d, %d units:\n%s", shown, len(many), units(got), got)
	}
	if want := "…and " + strconv.Itoa(len(many)-shown) + " more entries not shown"; !strings.Contains(got, want) {
		t.Errorf("cut list lacks %q:\n%s", want, got[len(got)-300:])
	}
}
