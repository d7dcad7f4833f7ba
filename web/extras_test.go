package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
)

// The chat page draws the month's spend of the chat as SVG bars (today's
// marked), says today's and the month's, and lists the chat's schedules
// (not another chat's) with their next run; the CSP stays strict.
func TestChatPageSpendAndSchedules(t *testing.T) {
	r := newRig(t, func(c *Config, st *prefs.Store) {
		c.Location = time.UTC
		now := time.Unix(1_800_000_000, 0) // the rig's clock
		for _, x := range []struct {
			key, session string
			total        float64
			at           time.Time
		}{
			{"1001", "A", 0.40, now.AddDate(0, 0, -2)},
			{"1001", "A", 1.00, now},
			{"1002", "B", 5.00, now},
		} {
			if x.at.Month() != now.Month() {
				t.Fatal("the rig's clock is too early in its month for this test")
			}
			if _, err := st.RecordTurnCost(x.key, x.session, x.total, x.at); err != nil {
				t.Fatal(err)
			}
		}
		for _, sc := range []prefs.Schedule{
			{Key: "1001", ChatID: alice, Prompt: "check the <build>", Every: 6 * time.Hour, Next: now.Add(90 * time.Minute)},
			{Key: "1002", ChatID: bob, Prompt: "bob's own", Every: time.Hour, Next: now.Add(time.Hour)},
		} {
			if _, err := st.AddSchedule(sc, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
	c := client(t)
	r.signIn(t, c, alice)
	resp, err := c.Get(r.ts.URL + "/chat/1001")
	if err != nil {
		t.Fatal(err)
	}
	_, page := body(t)(resp, nil)
	for _, want := range []string{"<svg class=\"chart\"", "Today $0.60 · this month $1.00", "(all chats: today $5.60, this month $6.00)",
		`<rect class="bar today"`, `<text class="day" x="`, "Every 6 hours</strong>: check the &lt;build&gt;", "(in 1 h 30 min)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the chat page lacks %q", want)
		}
	}
	if strings.Contains(page, `y=""`) {
		t.Error("a chart element has no place")
	}
	if strings.Contains(page, "bob&#39;s own") || strings.Contains(page, "bob's own") {
		t.Error("another chat's schedule is on the page")
	}
	if n := strings.Count(page, "<rect class=\"bar"); n != r.now.Day() {
		t.Errorf("%d bars, want one per day so far (%d)", n, r.now.Day())
	}
	if got := resp.Header.Get("Content-Security-Policy"); got != csp || strings.Contains(got, "unsafe") {
		t.Errorf("CSP %q", got)
	}
}

// A patch's lines are classed for their colours, a file's header apart
// from its added and removed lines, and a line that looks like markup is
// text on the page.
func TestDiffColoured(t *testing.T) {
	patch := "diff --git a/a.txt b/a.txt\nindex 1..2 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\n-two\n+TWO <script>x</script>\n+three\n"
	lines, cut := diffLines(patch)
	var classes []string
	for _, l := range lines {
		classes = append(classes, l.Class)
	}
	want := []string{"meta", "meta", "meta", "meta", "hunk", "", "del", "add", "add"}
	if cut || strings.Join(classes, ",") != strings.Join(want, ",") {
		t.Errorf("classes %q, want %q", classes, want)
	}
	var b bytes.Buffer
	err := pages.ExecuteTemplate(&b, "changes", map[string]any{"Title": "Alice", "Key": "1001", "Turn": true, "Dir": "/src",
		"Files": []fileView{{Status: "M", Path: "a.txt", Added: 2, Removed: 1}}, "Lines": lines})
	if err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, w := range []string{"What the last turn changed", `<span class="d-del">-two</span>`,
		`<span class="d-add">&#43;TWO &lt;script&gt;x&lt;/script&gt;</span>`, `<span class="d-add">+2</span>`} {
		if !strings.Contains(page, w) {
			t.Errorf("the changes page lacks %q", w)
		}
	}
	if strings.Contains(page, "<script>x") {
		t.Error("a patch line is markup on the page")
	}
	if many, cut := diffLines(strings.Repeat("+x\n", maxDiffLines+1)); !cut || len(many) != maxDiffLines {
		t.Errorf("a long patch: %d lines, cut %v", len(many), cut)
	}
}

func TestChangesNeedsTheChat(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, bob)
	if code, _ := body(t)(c.Get(r.ts.URL + "/chat/1001/changes")); code != http.StatusNotFound {
		t.Errorf("bob's look at alice's changes: %d, want 404", code)
	}
}

// A request's input is shown as the tool got it: JSON's HTML escapes
// (\u0026 for &) would show a command other than the one to approve.
func TestPendingInputShownAsGiven(t *testing.T) {
	r := newRig(t)
	p := &approvals.Prompt{Request: approvals.Request{RequestID: "r", ToolName: "Bash",
		Input: json.RawMessage(`{"command":"make && git push <origin>"}`)}}
	if v := r.s.pendingView("1", "Alice", p); v.Input != "{\n  \"command\": \"make && git push <origin>\"\n}" {
		t.Errorf("the input shown: %q", v.Input)
	}
}
