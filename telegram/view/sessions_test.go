package view

import (
	"strings"
	"testing"
	"time"
)

func TestSessionsText(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	cur := &SessionItem{Title: "fix the <login> bug\nplease", WorkDir: "/code/api", When: now.Add(-2 * time.Hour)}
	earlier := []SessionItem{
		{Title: "write the docs for the whole project, every page of it", WorkDir: "/code/web", When: now.Add(-72 * time.Hour), Data: "s:1"},
		{Title: "", When: now.Add(-30 * time.Second), Data: "s:2"},
	}
	text := SessionsText(Sessions{Current: cur, Earlier: earlier, Now: now})
	checkHTML(t, "sessions", text)
	for _, want := range []string{
		"Current: <b>fix the &lt;login&gt; bug please</b> · <code>/code/api</code> · started 2 hours ago",
		"1. <b>write the docs for the whole project, every page of it</b> · <code>/code/web</code> · ended 3 days ago",
		"2. <b>(untitled)</b> · ended just now",
		"Tap one to continue it",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("sessions text lacks %q:\n%s", want, text)
		}
	}
	kb := SessionsKeyboard(earlier)
	checkKeyboard(t, "sessions", kb)
	if len(kb) != 2 || kb[0][0].Text != "↩ 1. write the docs for the whole pr…" || kb[1][0].Data != "s:2" {
		t.Errorf("keyboard = %+v", kb)
	}

	none := SessionsText(Sessions{Now: now})
	checkHTML(t, "no sessions", none)
	if !strings.Contains(none, "none (your next message starts one)") || !strings.Contains(none, "No earlier sessions") {
		t.Errorf("empty list:\n%s", none)
	}
	sw := SessionSwitched(earlier[0], "@ada")
	checkHTML(t, "switched", sw)
	if !strings.Contains(sw, "Switched to <b>write the docs") || !strings.Contains(sw, "by @ada") {
		t.Errorf("switched = %q", sw)
	}
}

func TestSessionsUnreadableEscapes(t *testing.T) {
	got := SessionsUnreadable(`decode "1": invalid character '<' & <b>more</b>`)
	want := `Could not read the sessions: decode &quot;1&quot;: invalid character '&lt;' &amp; &lt;b&gt;more&lt;/b&gt;`
	if got != want {
		t.Errorf("SessionsUnreadable = %q, want %q", got, want)
	}
	checkHTML(t, "SessionsUnreadable", got)
}

// The directory's list names the engine whose store it is.
func TestSessionsTextNamesTheStoresEngine(t *testing.T) {
	here := []SessionItem{{Title: "desk work", Turns: 2, Outside: true, Data: "s:1"}}
	for engine, want := range map[string]string{"": "(Claude Code's sessions, newest first)", "claude": "(Claude Code's sessions, newest first)", "codex": "(Codex's sessions, newest first)"} {
		text := SessionsText(Sessions{Dir: "/code", Here: here, Engine: engine})
		checkHTML(t, "sessions of "+engine, text)
		if !strings.Contains(text, want) {
			t.Errorf("engine %q: lacks %q:\n%s", engine, want, text)
		}
	}
}
