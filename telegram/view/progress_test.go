package view

import (
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/toolkinds"
)

// twelveActions is a turn with mixed kinds and states, as the actor would
// build it from toolkinds.Describe.
func twelveActions() []Action {
	calls := []struct {
		tool, input string
		state       ActionState
		detail      string
	}{
		{"Read", `{"file_path":"/home/user/project/go.mod"}`, Done, "14 lines"},
		{"Grep", `{"pattern":"func main"}`, Done, "3 matches"},
		{"Bash", `{"command":"go build ./..."}`, Done, "exit 0"},
		{"WebSearch", `{"query":"telegram bot api editMessageText limits"}`, Done, "8 results"},
		{"Edit", `{"file_path":"/home/user/project/main.go"}`, Done, ""},
		{"TodoWrite", `{"todos":[{"content":"a","status":"completed"},{"content":"b","status":"in_progress","activeForm":"Writing tests"}]}`, Done, ""},
		{"Bash", `{"command":"go test ./... 2>&1 | tail -n 20"}`, Failed, "exit 1: FAIL github.com/x/y <nil> & more"},
		{"Task", `{"description":"Find flaky tests"}`, Done, "found 2"},
		{"Write", `{"file_path":"/home/user/project/docs/<notes>.md"}`, Done, ""},
		{"mcp__github__create_issue", `{}`, Done, "issue #12"},
		{"WebFetch", `{"url":"https://example.com/a?b=1&c=2"}`, Failed, "HTTP 404"},
		{"Bash", `{"command":"go test -race ./telegram/..."}`, Running, ""},
	}
	var out []Action
	for i, c := range calls {
		kind, title := toolkinds.Describe(c.tool, []byte(c.input), workDir)
		out = append(out, Action{ID: "toolu_" + itoaTest(i), Kind: kind, Title: title, State: c.state, Detail: c.detail})
	}
	return out
}

func itoaTest(i int) string { return string(rune('a' + i)) }

func TestProgressGolden(t *testing.T) {
	base := Progress{
		State: "working", Elapsed: 65 * time.Second, Steps: 12, Actions: twelveActions(), MaxActions: 8,
		Model: "claude-sonnet-4-5", PermissionMode: "default",
		LastText: "Now I'll run the race tests for the telegram packages\nto make sure the outbox is fine.", Queued: 2,
	}
	got := ProgressText(base)
	checkHTML(t, "progress", got)
	for _, s := range []string{"⏳ <b>working</b> · 1m 05s · 12 steps", "<i>… 4 earlier</i>", "▶ 💻 go test -race ./telegram/...",
		"✗ 🌐 https://example.com/a?b=1&amp;c=2", "📥 2 messages queued", "<i>claude-sonnet-4-5 · default</i>",
		"docs/&lt;notes&gt;.md"} {
		if !strings.Contains(got, s) {
			t.Errorf("progress lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "WebSearch") || strings.Contains(got, "editMessageText") {
		t.Errorf("an early action is shown:\n%s", got)
	}
	if n := strings.Count(got, "\n✓ ") + strings.Count(got, "\n✗ ") + strings.Count(got, "\n▶ "); n != 8 {
		t.Errorf("%d action lines, want 8", n)
	}
	golden(t, "progress_12", got+"\n")

	verbose := base
	verbose.Verbose = true
	verbose.State = "waiting for approval"
	got = ProgressText(verbose)
	checkHTML(t, "verbose", got)
	for _, s := range []string{"✋ <b>waiting for approval</b>", "<i>command</i> go test ./... 2&gt;&amp;1", "<i>exit 1: FAIL github.com/x/y &lt;nil&gt; &amp; more</i>"} {
		if !strings.Contains(got, s) {
			t.Errorf("verbose progress lacks %q:\n%s", s, got)
		}
	}
	golden(t, "progress_verbose", got+"\n")
}

func TestProgressMinimal(t *testing.T) {
	got := ProgressText(Progress{})
	checkHTML(t, "empty", got)
	if got != "⏳ <b>working</b> · 0s" {
		t.Errorf("empty progress: %q", got)
	}
	got = ProgressText(Progress{State: "starting", Elapsed: 3 * time.Second, Actions: twelveActions()[:2]})
	if strings.Contains(got, "earlier") || strings.Count(got, "\n") != 2 {
		t.Errorf("two actions, default max:\n%s", got)
	}
}

func TestProgressNastyFits(t *testing.T) {
	long := strings.Repeat("<script>&\"😀", 2000)
	var acts []Action
	for i := 0; i < 500; i++ {
		acts = append(acts, Action{Kind: toolkinds.Kind(long), Title: long, Detail: long, State: ActionState(i % 4)})
	}
	p := Progress{State: long, Elapsed: 1000 * time.Hour, Steps: 500, Actions: acts, MaxActions: 500, Verbose: true,
		Model: long, PermissionMode: long, LastText: long, Queued: 99}
	got := ProgressText(p)
	checkHTML(t, "nasty", got)
	if !strings.Contains(got, "earlier") {
		t.Error("nothing was left out of 500 huge actions")
	}
	if strings.Contains(got, "<script>") {
		t.Error("unescaped title")
	}
	checkHTML(t, "nasty summary", ProgressSummary(p, false))
}

func TestFormatElapsed(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                      "0s",
		0:                                 "0s",
		999 * time.Millisecond:            "0s",
		8 * time.Second:                   "8s",
		59 * time.Second:                  "59s",
		60 * time.Second:                  "1m 00s",
		65 * time.Second:                  "1m 05s",
		59*time.Minute + 59*time.Second:   "59m 59s",
		time.Hour + 2*time.Minute + 59e9:  "1h 02m",
		100*time.Hour + 5*time.Minute + 1: "100h 05m",
	} {
		if got := FormatElapsed(d); got != want {
			t.Errorf("FormatElapsed(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestProgressSummaryAndKeyboard(t *testing.T) {
	p := Progress{State: "working", Elapsed: 42 * time.Second, Steps: 7}
	for _, c := range []struct {
		state string
		ok    bool
		want  string
	}{
		{"done", true, "✓ done · 42s · 7 steps"},
		{"working", false, "✗ failed · 42s · 7 steps"},
		{"cancelling", false, "✗ cancelled · 42s · 7 steps"},
		{"interrupted by restart", false, "✗ interrupted by restart · 42s · 7 steps"},
	} {
		p.State = c.state
		if got := ProgressSummary(p, c.ok); got != c.want {
			t.Errorf("%s/%v: %q, want %q", c.state, c.ok, got, c.want)
		}
	}
	if got := ProgressSummary(Progress{Steps: 1}, true); got != "✓ done · 0s · 1 step" {
		t.Errorf("one step: %q", got)
	}
	if ProgressKeyboard("") != nil {
		t.Error("keyboard without cancel data")
	}
	kb := ProgressKeyboard("c:abc")
	if len(kb) != 1 || len(kb[0]) != 1 || kb[0][0] != (Button{Text: "✖ Cancel", Data: "c:abc", Style: StyleDanger}) {
		t.Errorf("cancel keyboard %v", kb)
	}
	checkKeyboard(t, "cancel", kb)
}
