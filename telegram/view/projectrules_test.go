package view

import (
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
