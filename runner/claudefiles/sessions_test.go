package claudefiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
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
	first, turns, cwd, err := scanPrompts(f)
	if err != nil {
		t.Fatal(err)
	}
	if first != "hello there" || turns != 4 {
		t.Errorf("first %q, turns %d; want \"hello there\", 4", first, turns)
	}
	if cwd != "/tmp/t/my proj.x_y" {
		t.Errorf("cwd %q, want the one the transcript's lines record", cwd)
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
	first, turns, _, err := scanPrompts(strings.NewReader(in))
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
		line := `{"type":"user","message":{"role":"user","content":"` + prompt + `"},"cwd":"` + dir + `"}` + "\n"
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
	list, err := ListSessions(context.Background(), nil, cfg, dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].FirstPrompt != "new one" || list[1].FirstPrompt != "old one" || list[0].Turns != 1 {
		t.Fatalf("list = %+v", list)
	}
	if one, _ := ListSessions(context.Background(), nil, cfg, dir, 1); len(one) != 1 || one[0].FirstPrompt != "new one" {
		t.Errorf("limit 1: %+v", one)
	}
	if none, err := ListSessions(context.Background(), nil, cfg, "/elsewhere", 0); err != nil || len(none) != 0 {
		t.Errorf("no folder: %v %v", none, err)
	}
	if _, ok := StatSession(nil, cfg, dir, "../../etc/passwd"); ok {
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

// writeSession writes a session file the way the CLI does: the first line
// (a queue operation) records no cwd, the prompt does; cwd "" writes none.
func writeSession(t *testing.T, cfg, folderOf, id, cwd, prompt string, age time.Duration) {
	t.Helper()
	folder := SessionsDir(cfg, folderOf)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := ""
	if cwd != "" {
		rec = `,"cwd":"` + cwd + `"`
	}
	body := `{"type":"queue-operation","operation":"enqueue","content":"` + prompt + `"}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"` + prompt + `"}` + rec + `}` + "\n"
	p := filepath.Join(folder, id+".jsonl")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	when := time.Now().Add(-age)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
}

// TestListSessionsOnlyThisDirectory: two directories whose names encode
// alike share one folder of the store; each lists only the sessions that
// started in it, and one that records no directory is nobody's. Later
// lines that follow a cd into a subdirectory do not move a session.
func TestListSessionsOnlyThisDirectory(t *testing.T) {
	cfg, mine, other := t.TempDir(), "/code/api/v2", "/code/api-v2"
	if SessionsDir(cfg, mine) != SessionsDir(cfg, other) {
		t.Fatalf("%s and %s no longer share a folder: the test needs two that do", mine, other)
	}
	writeSession(t, cfg, mine, "aaaaaaaa-0000-0000-0000-000000000001", other, "the other project", time.Minute)
	writeSession(t, cfg, mine, "aaaaaaaa-0000-0000-0000-000000000002", mine, "this project", time.Hour)
	writeSession(t, cfg, mine, "aaaaaaaa-0000-0000-0000-000000000003", "", "nobody's", 2*time.Minute)
	writeSession(t, cfg, mine, "aaaaaaaa-0000-0000-0000-000000000004", mine+"/", "this one too", 2*time.Hour)
	moved := filepath.Join(SessionsDir(cfg, mine), "aaaaaaaa-0000-0000-0000-000000000004.jsonl")
	f, err := os.OpenFile(moved, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"user","message":{"role":"user","content":"later"},"cwd":"` + mine + `/sub"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	when := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(moved, when, when); err != nil {
		t.Fatal(err)
	}

	prompts := func(list []engine.PastSession) []string {
		var out []string
		for _, s := range list {
			out = append(out, s.FirstPrompt)
		}
		return out
	}
	for _, c := range []struct {
		dir   string
		limit int
		want  string
	}{
		{mine, 0, "this project,this one too"},
		{mine, 1, "this project"}, // the newer sessions of the other directory do not use up the limit
		{other, 0, "the other project"},
	} {
		list, err := ListSessions(context.Background(), nil, cfg, c.dir, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(prompts(list), ","); got != c.want {
			t.Errorf("ListSessions(%s, %d) = %q, want %q", c.dir, c.limit, got, c.want)
		}
	}
}
