package claudetest

import (
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
)

func synctestRun(t *testing.T, name string, f func(t *testing.T)) {
	t.Run(name, func(t *testing.T) { synctest.Test(t, f) })
}

// A body shaped like the CLI's: system blocks, a role "system" message,
// system-reminder text, tool_use and tool_result in both content forms.
const cliLikeBody = `{
 "model": "claude-opus-5-5", "stream": true, "max_tokens": 128000,
 "system": [{"type":"text","text":"You are Claude Code."},{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],
 "tools": [{"name":"Bash","input_schema":{}},{"name":"Write","input_schema":{}}],
 "thinking": {"type":"adaptive"},
 "messages": [
  {"role":"user","content":[{"type":"text","text":"<system-reminder>\nplan mode: write your plan to ` + "`/home/u/.claude/plans/plan-quiet-otter.md`" + ` then call ExitPlanMode\n</system-reminder>"},{"type":"text","text":"Do it."}]},
  {"role":"system","content":[{"type":"text","text":"# Environment"}]},
  {"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo hi"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"hi","is_error":false}]},
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"false"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"Exit code 1"}],"is_error":true},{"type":"text","text":"next"}]},
  {"role":"user","content":"plain string content"}
 ]}`

func TestParseCLIShapedRequest(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/messages?beta=true", nil)
	req, err := parseRequest(r, []byte(cliLikeBody))
	if err != nil {
		t.Fatal(err)
	}
	if req.Path != "/v1/messages?beta=true" || req.Model != "claude-opus-5-5" || !req.Stream || req.MaxTokens != 128000 {
		t.Errorf("header fields: %+v", req)
	}
	if req.System != "You are Claude Code.\nBe brief." {
		t.Errorf("System = %q", req.System)
	}
	if !slices.Equal(req.Tools, []string{"Bash", "Write"}) {
		t.Errorf("Tools = %q", req.Tools)
	}
	if len(req.Messages) != 7 || req.Messages[1].Role != "system" || req.AssistantTurns() != 2 {
		t.Errorf("messages: %d, roles %v %v, assistant turns %d", len(req.Messages), req.Messages[0].Role, req.Messages[1].Role, req.AssistantTurns())
	}
	want := []ToolResult{{"toolu_1", "hi", false}, {"toolu_2", "Exit code 1", true}}
	if got := req.ToolResults(); !slices.Equal(got, want) {
		t.Errorf("ToolResults = %+v, want %+v", got, want)
	}
	if got := req.UserTexts(); len(got) != 4 || got[1] != "Do it." || got[3] != "plain string content" {
		t.Errorf("UserTexts = %q", got)
	}
	if b := req.Messages[2].Content; b[0].Text != "hmm" || b[1].Name != "Bash" || string(b[1].Input) != `{"command":"echo hi"}` {
		t.Errorf("assistant blocks = %+v", b)
	}
	if got := PlanFilePath(req); got != "/home/u/.claude/plans/plan-quiet-otter.md" {
		t.Errorf("PlanFilePath = %q", got)
	}
	if string(req.Raw) != cliLikeBody {
		t.Error("Raw is not the body as sent")
	}
}

func TestPlanFilePathAbsent(t *testing.T) {
	req := &Request{System: "no plan here, only /home/u/.claude/settings.json and plans/x.md"}
	if got := PlanFilePath(req); got != "" {
		t.Errorf("PlanFilePath = %q, want empty", got)
	}
	req.Messages = []Message{{Role: "user", Content: []Block{{Type: "text", Text: "Write it to /tmp/h/.claude/plans/a-b_c.md."}}}}
	if got := PlanFilePath(req); got != "/tmp/h/.claude/plans/a-b_c.md" {
		t.Errorf("PlanFilePath = %q", got)
	}
}

func TestParseRejectsBadShapes(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/messages", nil)
	for _, b := range []string{`[]`, `{"messages":[{"role":"user","content":7}]}`, `{"system":{"a":1}}`} {
		if _, err := parseRequest(r, []byte(b)); err == nil {
			t.Errorf("parseRequest(%s) accepted it", b)
		}
	}
}

func TestEnvIsolated(t *testing.T) {
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "real-secret")
	t.Setenv("ANTHROPIC_API_KEY", "real-key")
	t.Setenv("CLAUDE_CONFIG_DIR", "/somewhere")
	t.Setenv("PATH", "/bin:/usr/bin")
	env, home := Env(t, "http://127.0.0.1:1")
	joined := strings.Join(env, "\n")
	for _, want := range []string{"HOME=" + home, "ANTHROPIC_BASE_URL=http://127.0.0.1:1", "ANTHROPIC_API_KEY=test-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1", "PATH=/bin:/usr/bin"} {
		if !slices.Contains(env, want) {
			t.Errorf("env lacks %q", want)
		}
	}
	for _, leak := range []string{"real-secret", "real-key", "CLAUDE_CONFIG_DIR", "ANTHROPIC_AUTH_TOKEN"} {
		if strings.Contains(joined, leak) {
			t.Errorf("env leaks %q:\n%s", leak, joined)
		}
	}
	entries, err := os.ReadDir(home)
	if err != nil || len(entries) != 0 {
		t.Errorf("home %q is not a fresh empty dir: %v %v", home, entries, err)
	}
}
