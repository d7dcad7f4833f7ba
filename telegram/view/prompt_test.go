package view

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/render"
)

const (
	workDir = "/home/user/project"
	chatID  = int64(42)
	userID  = int64(7)
)

type nopResponder struct{}

func (nopResponder) Allow(context.Context, string, json.RawMessage, []json.RawMessage) error {
	return nil
}
func (nopResponder) Deny(context.Context, string, string, bool) error { return nil }

// cliRequest reads a can_use_tool "request" object as the CLI sends it
// (testdata/requests/*.json) into the Request the bot builds from it.
func cliRequest(t testing.TB, name string) approvals.Request {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "requests", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return parseCLIRequest(t, raw)
}

func parseCLIRequest(t testing.TB, raw []byte) approvals.Request {
	t.Helper()
	var r struct {
		ToolName    string            `json:"tool_name"`
		Input       json.RawMessage   `json:"input"`
		Suggestions []json.RawMessage `json:"permission_suggestions"`
		BlockedPath string            `json:"blocked_path"`
		Description string            `json:"description"`
		ToolUseID   string            `json:"tool_use_id"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return approvals.Request{
		RequestID: "req-1", ToolName: r.ToolName, Input: r.Input, Suggestions: r.Suggestions,
		ToolUseID: r.ToolUseID, BlockedPath: r.BlockedPath, Description: r.Description,
		ChatID: chatID, SessionKey: "42", PermissionMode: "default", PlanMode: approvals.PlanOn, WorkDir: workDir,
	}
}

// submit hands req to a real broker and returns its prompt, the broker
// (for presses) and the time to render the deadline against.
func submit(t testing.TB, req approvals.Request) (*approvals.Prompt, *approvals.Broker, time.Time) {
	t.Helper()
	b := approvals.New(approvals.Config{IsAllowed: func(id int64) bool { return id == userID }})
	t.Cleanup(func() { _, _ = b.CancelSession(context.Background(), req.SessionKey, "test over") })
	sub, err := b.Submit(context.Background(), req, nopResponder{})
	if err != nil {
		t.Fatal(err)
	}
	if sub.Prompt == nil {
		t.Fatalf("request answered automatically (%s, %s)", sub.Outcome, sub.Reason)
	}
	return sub.Prompt, b, sub.Prompt.Deadline.Add(-approvals.DefaultTimeout)
}

// stable copies p with readable tokens, so goldens do not depend on the
// broker's random ones.
func stable(p *approvals.Prompt) *approvals.Prompt {
	c := *p
	c.Actions = nil
	for _, a := range p.Actions {
		a.Token = "tok-" + string(a.Kind)
		c.Actions = append(c.Actions, a)
	}
	c.Question = stableQuestion(p.Question)
	return &c
}

func stableQuestion(q *approvals.QuestionView) *approvals.QuestionView {
	if q == nil {
		return nil
	}
	c := *q
	c.Options = nil
	for i, o := range q.Options {
		o.Token = fmt.Sprintf("tok-opt%d", i)
		c.Options = append(c.Options, o)
	}
	if c.DoneToken != "" {
		c.DoneToken = "tok-done"
	}
	c.OtherToken, c.DenyToken = "tok-other", "tok-deny"
	return &c
}

func TestPromptGolden(t *testing.T) {
	for _, name := range []string{"bash", "write", "edit", "multiedit", "webfetch", "mcp"} {
		t.Run(name, func(t *testing.T) {
			p, _, now := submit(t, cliRequest(t, name))
			p = stable(p)
			parts := PromptText(p, workDir, now)
			kb := PromptKeyboard(p, "a:")
			checkParts(t, name, parts)
			checkKeyboard(t, name, kb)
			if len(parts) != 1 {
				t.Errorf("tool prompt in %d parts, want 1", len(parts))
			}
			golden(t, "prompt_"+name, formatView(parts, kb))
		})
	}
}

func TestPromptContent(t *testing.T) {
	type want struct {
		in, notIn []string
		buttons   []string
	}
	cases := map[string]want{
		"bash": {
			in: []string{
				"run a command", "<pre><code class=\"language-bash\">touch made-by-bash.txt &amp;&amp; echo made</code></pre>",
				"<i>Create a marker file</i>", "Path: <code>made-by-bash.txt</code>",
				"Always allow will:", "always allow Bash: touch made-by-bash.txt &amp;&amp; echo made",
				"For this session, accept file edits", "Answer within 10 min",
			},
			buttons: []string{LabelApprove, LabelDeny, LabelAlways},
		},
		"edit": {
			in:      []string{"edit</b> <code>notes.txt</code>", "- beta\n+ gamma"},
			notIn:   []string{"Path:", "/home/user/project"}, // relative, and no redundant blocked path
			buttons: []string{LabelApprove, LabelDeny, LabelAlways},
		},
		"write": {
			in:    []string{"write</b> <code>hello.txt</code> · 1 line", "<pre>hello from the fake model</pre>"},
			notIn: []string{"<i>hello.txt</i>"}, // the CLI's description only repeats the file
		},
		"multiedit": {
			// The unchanged first line is context: it says where the edit lands.
			in: []string{"server/handler.go</code> · 3 edits", "  func handle(w http.ResponseWriter", "- \tif r.Method != &quot;GET&quot; {",
				"+ \t\treturn", "… and 2 more edits"},
		},
		"webfetch": {
			in: []string{"fetch a web page", "<b>url</b>: https://example.com/docs?page=2&amp;lang=en",
				"<b>prompt</b>: Summarise the &lt;main&gt; section &amp; list the &quot;breaking&quot; changes",
				"<i>Claude wants to fetch content from example.com</i>"},
		},
		"mcp": {
			in: []string{"MCP tool</b> <code>github: create_issue</code>", "<b>title</b>: Progress message &lt;b&gt;flickers&lt;/b&gt;",
				`<b>labels</b>: [&quot;bug&quot;,&quot;telegram&quot;]`, "<b>milestone</b>: 3",
				"Steps: 1. start a long turn"},
		},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			p, _, now := submit(t, cliRequest(t, name))
			text := PromptText(p, workDir, now)[0]
			for _, s := range w.in {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q:\n%s", s, text)
				}
			}
			for _, s := range w.notIn {
				if strings.Contains(text, s) {
					t.Errorf("text has %q:\n%s", s, text)
				}
			}
			kb := PromptKeyboard(p, "a:")
			if w.buttons != nil {
				var got []string
				for _, row := range kb {
					for _, b := range row {
						got = append(got, b.Text)
					}
				}
				if strings.Join(got, "|") != strings.Join(w.buttons, "|") {
					t.Errorf("buttons %q, want %q", got, w.buttons)
				}
			}
		})
	}
}

// TestPromptKeyboardPresses checks that every button carries a token the
// broker accepts: the keyboard is wired to the real approvals flow.
func TestPromptKeyboardPresses(t *testing.T) {
	want := map[string]approvals.Outcome{
		LabelApprove: approvals.OutcomeApproved,
		LabelDeny:    approvals.OutcomeDenied,
		LabelAlways:  approvals.OutcomeAlways,
	}
	for label, outcome := range want {
		p, b, _ := submit(t, cliRequest(t, "bash"))
		var data string
		for _, row := range PromptKeyboard(p, "a:") {
			for _, btn := range row {
				if btn.Text == label {
					data = btn.Data
				}
			}
		}
		token, ok := strings.CutPrefix(data, "a:")
		if !ok {
			t.Fatalf("%s: no button with prefix a:, data %q", label, data)
		}
		res, err := b.Press(context.Background(), token, userID, chatID)
		if err != nil {
			t.Fatalf("%s: press: %v", label, err)
		}
		if res.Outcome != outcome {
			t.Errorf("%s: outcome %s, want %s", label, res.Outcome, outcome)
		}
	}
}

func TestPromptDeadline(t *testing.T) {
	d := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		left time.Duration
		want string
	}{
		{10 * time.Minute, "within 10 min"},
		{9*time.Minute + time.Second, "within 10 min"}, // rounded up: never promise less than there is
		{61 * time.Second, "within 2 min"},
		{45 * time.Second, "within 45 s"},
		{0, ""},
		{-time.Minute, ""},
	} {
		got := deadlineLine(d, d.Add(-c.left))
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("left %v: %q, want %q", c.left, got, c.want)
		}
	}
	if got := deadlineLine(time.Time{}, d); got != "" {
		t.Errorf("zero deadline: %q", got)
	}
}

func TestPlanPromptLong(t *testing.T) {
	var plan strings.Builder
	plan.WriteString("# Plan: move the outbox to priorities\n\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&plan, "## Step %d\n\nChange `file%d.go` so that <tags> & \"quotes\" survive; then run **go test ./...** and check step %d works.\n\n- detail a of step %d\n- detail b of step %d\n\n", i, i, i, i, i)
	}
	input, _ := json.Marshal(map[string]string{"plan": plan.String(), "planFilePath": "/home/user/.claude/plans/plan-x.md"})
	req := approvals.Request{RequestID: "r1", Kind: engine.RequestPlan, ToolName: "ExitPlanMode", Input: input, ChatID: chatID, SessionKey: "42", PlanMode: approvals.PlanOn}
	p, _, now := submit(t, req)
	if p.Kind != approvals.KindPlan {
		t.Fatalf("kind %s", p.Kind)
	}
	p = stable(p)
	parts := PromptText(p, workDir, now)
	kb := PromptKeyboard(p, "a:")
	checkParts(t, "plan", parts)
	checkKeyboard(t, "plan", kb)
	if len(parts) < 2 {
		t.Fatalf("long plan in %d part(s), want several", len(parts))
	}
	if !strings.HasPrefix(parts[0], "📋 <b>Claude's plan</b>") {
		t.Errorf("first part does not start with the title: %.80q", parts[0])
	}
	last := parts[len(parts)-1]
	if !strings.Contains(last, "Answer within 10 min") || !strings.Contains(last, "Step 40") {
		t.Errorf("last part lacks the end of the plan or the deadline:\n%s", last)
	}
	visible := render.VisibleText(strings.Join(parts, "\n"))
	for i := 1; i <= 40; i++ {
		if !strings.Contains(visible, fmt.Sprintf("Step %d\n", i)) {
			t.Errorf("step %d missing from the parts", i)
		}
	}
	var labels []string
	for _, row := range kb {
		for _, b := range row {
			labels = append(labels, b.Text)
		}
	}
	if strings.Join(labels, "|") != LabelApprove+"|"+LabelDeny+"|"+LabelOutline {
		t.Errorf("plan buttons %q", labels)
	}
	golden(t, "prompt_plan_long", formatView(parts, kb))
}

func TestPlanPromptEmpty(t *testing.T) {
	p := &approvals.Prompt{Kind: approvals.KindPlan}
	parts := PromptText(p, workDir, time.Time{})
	checkParts(t, "empty plan", parts)
	if len(parts) != 1 || !strings.Contains(parts[0], "(the plan has no text)") {
		t.Errorf("empty plan: %q", parts)
	}
}

func TestPromptNil(t *testing.T) {
	if PromptText(nil, "", time.Time{}) != nil || PromptKeyboard(nil, "a:") != nil {
		t.Error("nil prompt should give nothing")
	}
}
