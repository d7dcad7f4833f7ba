package toolkinds

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDescribe(t *testing.T) {
	long := strings.Repeat("é", 200)
	cases := []struct {
		tool, input string
		kind        Kind
		title       string
	}{
		{"Bash", `{"command":"go test ./...\n  -race"}`, Command, "go test ./... -race"},
		{"BashOutput", `{"bash_id":"b1"}`, Command, "bashoutput b1"},
		{"KillShell", `{"shell_id":"s2"}`, Command, "killshell s2"},
		{"Edit", `{"file_path":"/w/pkg/a.go","old_string":"x"}`, FileChange, "pkg/a.go"},
		{"Write", `{"file_path":"/elsewhere/b.txt"}`, FileChange, "/elsewhere/b.txt"},
		{"Write", `{"file_path":"/w/../x/b.txt"}`, FileChange, "/w/../x/b.txt"},
		{"MultiEdit", `{"file_path":"c.go"}`, FileChange, "c.go"},
		{"NotebookEdit", `{"notebook_path":"/w/n.ipynb"}`, FileChange, "n.ipynb"},
		{"Read", `{"file_path":"/w/README.md"}`, Tool, "read README.md"},
		{"Glob", `{"pattern":"**/*.go"}`, Tool, "**/*.go"},
		{"Grep", `{"pattern":"func main","path":"."}`, Tool, "func main"},
		{"WebSearch", `{"query":"bbolt lock timeout"}`, WebSearch, "bbolt lock timeout"},
		{"WebFetch", `{"url":"https://go.dev/doc"}`, WebSearch, "https://go.dev/doc"},
		{"TodoWrite", `{"todos":[{"content":"a","status":"completed"},{"content":"b","activeForm":"Doing b","status":"in_progress"},{"content":"c","status":"pending"}]}`, Note, "todo 1/3: Doing b"},
		{"TodoWrite", `{}`, Note, "todo list"},
		{"AskUserQuestion", `{"questions":[{"question":"Which colour?"}]}`, Note, "question: Which colour?"},
		{"Task", `{"description":"explore the repo","prompt":"..."}`, Subagent, "explore the repo"},
		{"Agent", `{"prompt":"look around"}`, Subagent, "look around"},
		{"ExitPlanMode", `{"plan":"\n# Refactor the runner\n\nsteps"}`, Note, "plan: Refactor the runner"},
		{"mcp__github__create_issue", `{"title":"x"}`, Tool, "github: create_issue"},
		{"mcp__untether__send_file", `{"path":"/w/out/chart.png","caption":"x"}`, Tool, "send out/chart.png"},
		{"mcp__untether__send_file", `{}`, Tool, "untether: send_file"},
		{"mcp__weird", `{}`, Tool, "weird"},
		{"SomethingNew", `{"a":1}`, Tool, "SomethingNew"},
		// Wrong shapes and garbage never panic and fall back to the name.
		{"Bash", `{"command":42}`, Command, "Bash"},
		{"Edit", `"just a string"`, FileChange, "Edit"},
		{"Read", `not json`, Tool, "read"},
		{"Glob", ``, Tool, "Glob"},
		{"TodoWrite", `{"todos":"nope"}`, Note, "todo list"},
		{"AskUserQuestion", `{"questions":[1,2]}`, Note, "question"},
	}
	for _, c := range cases {
		kind, title := Describe(c.tool, json.RawMessage(c.input), "/w")
		if kind != c.kind || title != c.title {
			t.Errorf("Describe(%s, %s) = %s %q, want %s %q", c.tool, c.input, kind, title, c.kind, c.title)
		}
	}
	_, title := Describe("Bash", json.RawMessage(`{"command":"`+long+`"}`), "")
	if n := utf8.RuneCountInString(title); n != MaxTitle || !strings.HasSuffix(title, "…") || !utf8.ValidString(title) {
		t.Errorf("long title: %d runes, %q", n, title)
	}
}

func TestTruncate(t *testing.T) {
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello!", 5, "hell…"},
		{"日本語テキスト", 4, "日本語…"},
		{"a\xffb", 10, "a\uFFFDb"},
		{"abc", 0, ""},
	}
	for _, c := range cases {
		if got := Truncate(c.in, c.max); got != c.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func FuzzDescribe(f *testing.F) {
	f.Add("Bash", `{"command":"ls"}`)
	f.Add("Edit", `{"file_path":"/w/x"}`)
	f.Add("TodoWrite", `{"todos":[{"status":"in_progress"}]}`)
	f.Fuzz(func(t *testing.T, tool, input string) {
		_, title := Describe(tool, json.RawMessage(input), "/w")
		if !utf8.ValidString(title) || utf8.RuneCountInString(title) > MaxTitle || strings.ContainsAny(title, "\n\r") {
			t.Fatalf("bad title %q", title)
		}
	})
}
