package approvals

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func bash(cmd string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": cmd, "description": "x"})
	return b
}

func TestAllowListMatch(t *testing.T) {
	tests := []struct {
		entry string
		tool  string
		input json.RawMessage
		want  bool
	}{
		{"Read", "Read", json.RawMessage(`{"file_path":"/a"}`), true},
		{"Read", "ReadX", nil, false},
		{"read", "Read", nil, false}, // names are exact
		{" Grep ", "Grep", nil, true},
		{"Bash", "Bash", bash("rm -rf /tmp/x"), true}, // a plain name allows any input
		{"Bash(git status:*)", "Bash", bash("git status"), true},
		{"Bash(git status:*)", "Bash", bash("git status --short"), true},
		{"Bash(git status:*)", "Bash", bash("  git status -s  "), true},
		{"Bash(git status:*)", "Bash", bash("git statusx"), false},
		{"Bash(git status:*)", "Bash", bash("git stat"), false},
		{"Bash(git status:*)", "Bash", bash("git status; rm -rf ~"), false},
		{"Bash(git status:*)", "Bash", bash("git status && rm x"), false},
		{"Bash(git status:*)", "Bash", bash("git status | sh"), false},
		{"Bash(git status:*)", "Bash", bash("git status > ~/.bashrc"), false},
		{"Bash(git status:*)", "Bash", bash("git status $(rm x)"), false},
		{"Bash(git status:*)", "Bash", bash("git status `rm x`"), false},
		{"Bash(git status:*)", "Bash", bash("git status\nrm x"), false},
		{"Bash(git status:*)", "Read", bash("git status"), false},
		{"Bash(make test)", "Bash", bash("make test"), true},
		{"Bash(make test)", "Bash", bash("make test2"), false},
		{"Bash(make test)", "Bash", bash("make"), false},
		{"Bash(make test && make lint)", "Bash", bash("make test && make lint"), true}, // exact may contain anything
		{"Bash(ls:*)", "Bash", json.RawMessage(`{"cmd":"ls"}`), false},
		{"Bash(ls:*)", "Bash", json.RawMessage(`not json`), false},
		{"Bash(:*)", "Bash", bash("anything"), false},
		{"Bash()", "Bash", bash(""), false},
		{"Bash(ls", "Bash", bash("ls"), false},
		{"(ls)", "Bash", bash("ls"), false},
		{"Read(./src/**)", "Read", json.RawMessage(`{"file_path":"./src/a"}`), false}, // left to the CLI
		{"", "Read", nil, false},
	}
	for _, tc := range tests {
		l := parseAllowList([]string{tc.entry})
		if got := l.allows(tc.tool, tc.input); got != tc.want {
			t.Errorf("entry %q, %s %s: got %v, want %v", tc.entry, tc.tool, tc.input, got, tc.want)
		}
	}
}

func TestMergeAllowList(t *testing.T) {
	got := MergeAllowList([]string{"Bash(git status:*)", "Read", " "}, []string{"Read", " Grep", "Bash(git status:*)"})
	want := []string{"Bash(git status:*)", "Read", "Grep"}
	if !slices.Equal(got, want) {
		t.Fatalf("MergeAllowList = %q, want %q", got, want)
	}
}

func TestDefaultAutoApprove(t *testing.T) {
	d := DefaultAutoApprove()
	for _, name := range []string{"Read", "Glob", "Grep", "LS", "WebSearch", "TodoWrite", "BashOutput"} {
		if !slices.Contains(d, name) {
			t.Errorf("default lacks %s", name)
		}
	}
	for _, name := range []string{"Bash", "Write", "Edit", "WebFetch", ToolExitPlanMode, ToolAskUserQuestion} {
		if slices.Contains(d, name) {
			t.Errorf("default must not contain %s", name)
		}
	}
	d[0] = "Bash"
	if DefaultAutoApprove()[0] == "Bash" {
		t.Fatal("DefaultAutoApprove shares its slice with callers")
	}
}

func TestDescribeSuggestions(t *testing.T) {
	tests := []struct {
		raw  string
		want string
	}{
		{`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch a.txt"}],"behavior":"allow","destination":"localSettings"}`,
			"always allow Bash: touch a.txt (saved to this project's local settings)"},
		{`{"type":"addRules","rules":[{"toolName":"WebFetch"}],"behavior":"allow","destination":"userSettings"}`,
			"always allow WebFetch (saved to your user settings)"},
		{`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm:*"}],"behavior":"deny","destination":"projectSettings"}`,
			"always deny Bash: rm:* (saved to this project's shared settings)"},
		{`{"type":"setMode","mode":"acceptEdits","destination":"session"}`,
			"accept file edits for the rest of this session"},
		{`{"type":"addDirectories","directories":["/home/user/project","/tmp"],"destination":"session"}`,
			"allow access to /home/user/project, /tmp this session"},
		{`{"type":"somethingNew"}`, "apply a permission change (somethingNew)"},
		{`[1,2]`, "apply a permission change"},
	}
	for _, tc := range tests {
		got := DescribeSuggestions([]json.RawMessage{json.RawMessage(tc.raw)})
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("DescribeSuggestions(%s) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}

// The messages to Claude say durations through package human, rounded up:
// a wait is never said shorter than it is.
func TestDurationsInMessages(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{msgTimedOut(DefaultTimeout), "did not answer in time (10 minutes)"},
		{msgCooldown(29600 * time.Millisecond), "wait about 30 seconds"},
		{msgCooldown(90 * time.Second), "wait about 2 minutes"},
	} {
		if !strings.Contains(c.msg, c.want) {
			t.Errorf("message %q does not say %q", c.msg, c.want)
		}
	}
}
