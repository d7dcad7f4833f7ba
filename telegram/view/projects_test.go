package view

import (
	"strings"
	"testing"
	"time"
)

func TestProjectTextsEscapeAndFit(t *testing.T) {
	nasty := "<b>&evil</b>\u202e"
	files := []DiffFile{{Status: "M", Path: nasty, Added: 2, Removed: 1}, {Status: "A", Path: "bin.dat", Added: -1, Removed: -1}}
	for i := 0; i < 60; i++ {
		files = append(files, DiffFile{Status: "D", Path: strings.Repeat("x", 300), Removed: 1})
	}
	sum := DiffSummary("/code/"+nasty, nasty, files)
	checkHTML(t, "DiffSummary", sum)
	for _, want := range []string{"62 files changed, +2 −61", "✏️ <code>&lt;b&gt;&amp;evil&lt;/b&gt;", "🆕 <code>bin.dat</code> binary", "more files"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if text, ok := DiffWithCode("s", "+"+nasty+"\n"); !ok || !strings.Contains(text, `<pre><code class="language-diff">+&lt;b&gt;&amp;evil&lt;/b&gt;&lt;U+202E&gt;`) {
		t.Errorf("DiffWithCode = %q %v", text, ok)
	} else {
		checkHTML(t, "DiffWithCode", text)
	}
	if _, ok := DiffWithCode("s", strings.Repeat("+line\n", 2000)); ok {
		t.Error("a long diff was put in a message")
	}
	if n := DiffFileName("/code/api", ""); n != "api.diff" {
		t.Errorf("DiffFileName = %q", n)
	}
	if n := DiffFileName("/code/api", "../we ird/<x>.go"); n != "we_ird__x_.go.diff" {
		t.Errorf("DiffFileName = %q", n)
	}
	for name, text := range map[string]string{
		"BranchList":      BranchList([]WorktreeItem{{Path: "/r/" + nasty, Branch: nasty, Main: true, Current: true}, {Path: "/r/x"}}),
		"BranchSwitched":  BranchSwitched(nasty, "/r/"+nasty, true, true),
		"BranchRefused":   BranchRefused(nasty),
		"NotARepo":        NotARepo(nasty),
		"GitFailed":       GitFailed(nasty),
		"SessionInUse":    SessionInUse(SessionItem{Title: nasty}, "just now"),
		"FinalFooterDesk": FinalFooter(Footer{OK: true, Changes: ChangeStat{Files: 1, Added: 2}, Desk: "cd '/a b' && claude --resume x"}),
		"Sessions": SessionsText(Sessions{Dir: "/d", Here: []SessionItem{{Title: nasty, Turns: 3, Outside: true, When: time.Unix(0, 0)}},
			Now: time.Unix(600, 0)}),
	} {
		checkHTML(t, name, text)
		if strings.Contains(text, "<b>&evil") {
			t.Errorf("%s: not escaped: %q", name, text)
		}
		// Paths and branch names show hidden characters; a session's
		// title is prose, where right-to-left text needs them.
		if name != "SessionInUse" && name != "Sessions" && name != "BranchRefused" && name != "GitFailed" && strings.Contains(text, "\u202e") {
			t.Errorf("%s: U+202E passed through: %q", name, text)
		}
	}
	if f := FinalFooter(Footer{OK: true, Changes: ChangeStat{Files: 1, Added: 2}}); !strings.Contains(f, "1 file changed, +2 −0") {
		t.Errorf("footer %q", f)
	}
	menu := CommandsWith([]MenuEntry{{Name: "status", Description: "clash"}, {Name: "hello", Description: strings.Repeat("é", 300)}, {Name: "mine", User: true}})
	last := menu[len(menu)-1]
	if menu[len(menu)-2].Command != "hello" || last.Command != "mine" || last.Description != "Claude Code (yours)" || len([]rune(menu[len(menu)-2].Description)) != 256 {
		t.Errorf("menu tail %+v", menu[len(menu)-3:])
	}
}
