package projects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The folder names below were measured with CLI 2.1.330 (TestEncoding in
// the measurement notes of docs/protocol.md).
func TestEncodeDirMeasured(t *testing.T) {
	long := "/tmp/TestEncoding1715112555/002/" + strings.Repeat("a", 120) + "/" + strings.Repeat("B", 120)
	for dir, want := range map[string]string{
		"/tmp/TestMeasure2172047969/002/my proj.x_y":           "-tmp-TestMeasure2172047969-002-my-proj-x-y",
		"/tmp/TestEncoding1715112555/002/Ünï code":             "-tmp-TestEncoding1715112555-002--n--code",
		"/tmp/TestEncoding1715112555/002/dots.and_under-score": "-tmp-TestEncoding1715112555-002-dots-and-under-score",
		long: "-tmp-TestEncoding1715112555-002-" + strings.Repeat("a", 120) + "-" + strings.Repeat("B", 47) + "-hzbauc",
	} {
		if got := EncodeDir(dir); got != want {
			t.Errorf("EncodeDir(%q)\n got %q\nwant %q", dir, got, want)
		}
	}
	// A character outside the BMP is two UTF-16 units, so two dashes.
	if got := EncodeDir("/a😀b"); got != "-a--b" {
		t.Errorf("emoji: %q", got)
	}
}

func TestConfigDir(t *testing.T) {
	if got := ConfigDir([]string{"HOME=/h", "CLAUDE_CONFIG_DIR=/c"}); got != "/c" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %q", got)
	}
	if got := ConfigDir([]string{"HOME=/h"}); got != "/h/.claude" {
		t.Errorf("HOME only: %q", got)
	}
	if got := ConfigDir([]string{"CLAUDE_CONFIG_DIR=/c", "CLAUDE_CONFIG_DIR=/d"}); got != "/d" {
		t.Errorf("later wins: %q", got)
	}
}

// The measured transcript: "hello there", "/hello Bob" (a custom
// command), "run echo" (a tool use), /compact (local), "after".
func TestScanPromptsMeasured(t *testing.T) {
	f, err := os.Open("testdata/session-2.1.330.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, turns, err := scanPrompts(f)
	if err != nil {
		t.Fatal(err)
	}
	if first != "hello there" || turns != 4 {
		t.Errorf("first %q, turns %d; want \"hello there\", 4", first, turns)
	}
}

func TestScanPromptsCommandFirstAndLongLines(t *testing.T) {
	long := `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` + strings.Repeat("x", maxScanLine+10) + `"}]}}`
	in := strings.Join([]string{
		`{"type":"user","message":{"role":"user","content":"<command-message>hello</command-message>\n<command-name>/hello</command-name>\n<command-args>Bob</command-args>\n"}}`,
		`{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Say hello to Bob politely."}]}}`,
		long,
		`{"type":"user","isSidechain":true,"message":{"role":"user","content":"subagent"}}`,
		`not json`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"second"}]}}`,
	}, "\n")
	first, turns, err := scanPrompts(strings.NewReader(in))
	if err != nil || first != "/hello Bob" || turns != 2 {
		t.Errorf("first %q turns %d err %v", first, turns, err)
	}
}

func TestListSessionsNewestFirst(t *testing.T) {
	cfg, dir := t.TempDir(), "/work/proj"
	folder := SessionsDir(cfg, dir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(id, prompt string, age time.Duration) {
		p := filepath.Join(folder, id+".jsonl")
		line := `{"type":"user","message":{"role":"user","content":"` + prompt + `"}}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	write("11111111-1111-1111-1111-111111111111", "old one", time.Hour)
	write("22222222-2222-2222-2222-222222222222", "new one", time.Minute)
	write("not-a-session!", "x", 0)
	write("-flag", "x", 0)
	if err := os.WriteFile(filepath.Join(folder, "notes.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := ListSessions(cfg, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].FirstPrompt != "new one" || list[1].FirstPrompt != "old one" || list[0].Turns != 1 {
		t.Fatalf("list = %+v", list)
	}
	if one, _ := ListSessions(cfg, dir, 1); len(one) != 1 || one[0].FirstPrompt != "new one" {
		t.Errorf("limit 1: %+v", one)
	}
	if none, err := ListSessions(cfg, "/elsewhere", 0); err != nil || len(none) != 0 {
		t.Errorf("no folder: %v %v", none, err)
	}
	if _, ok := StatSession(cfg, dir, "../../etc/passwd"); ok {
		t.Error("a path was taken for a session id")
	}
}

func TestResumeCommandQuotes(t *testing.T) {
	for dir, want := range map[string]string{
		"/home/me/api":      "cd /home/me/api && claude --resume abc-1",
		"/home/me/my proj":  "cd '/home/me/my proj' && claude --resume abc-1",
		"/tmp/it's; rm -rf": `cd '/tmp/it'\''s; rm -rf' && claude --resume abc-1`,
	} {
		if got := ResumeCommand(dir, "abc-1"); got != want {
			t.Errorf("ResumeCommand(%q) = %q, want %q", dir, got, want)
		}
	}
}
