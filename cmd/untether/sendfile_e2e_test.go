package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/filesend"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// TestContractBotSendFile: the real CLI starts `untether mcp` from the
// config the bot wrote, the fake model calls mcp__untether__send_file for
// an image and a text file (in one message: the CLI runs them at once),
// and the fake Bot API receives their bytes in sendPhoto and sendDocument.
// Claude reads that they were delivered; the secret is in no log line.
func TestContractBotSendFile(t *testing.T) {
	tool := "mcp__" + filesend.ServerName + "__" + filesend.ToolName
	e, api := realClaude(t,
		claudetest.Answer(
			claudetest.ToolUse(tool, map[string]any{"path": "chart.png", "caption": "The chart"}),
			claudetest.ToolUse(tool, map[string]any{"path": "notes/summary.txt"}),
		),
		claudetest.Say("Both are in your chat."),
	)
	img := tgtest.PNG(40, 30)
	work := filepath.Join(e.dir, "work")
	summary := []byte("the summary\n")
	putFile(t, filepath.Join(work, "chart.png"), img)
	putFile(t, filepath.Join(work, "notes", "summary.txt"), summary)
	p := e.start(t)
	q := e.tg.SendMessage(e.user, e.chat, "Send me the chart and the summary.")
	e.tg.AwaitMessage(90*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Both are in your chat.") })

	photos, docs := e.tg.Photos(e.chat.ID), e.tg.Documents(e.chat.ID)
	if len(photos) != 1 || len(docs) != 1 {
		t.Fatalf("%d photos and %d documents, want 1 of each", len(photos), len(docs))
	}
	if d, _ := e.tg.FileData(photos[0].FileID()); !bytes.Equal(d, img) || photos[0].Text != "The chart" || photos[0].ReplyTo != q {
		t.Errorf("photo %+v", photos[0])
	}
	if d, _ := e.tg.FileData(docs[0].FileID()); !bytes.Equal(d, summary) || docs[0].Document.FileName != "summary.txt" {
		t.Errorf("document %+v", docs[0])
	}
	reqs := api.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	if len(results) != 2 {
		t.Fatalf("tool results %+v", results)
	}
	for _, r := range results {
		if r.IsError || !strings.Contains(r.Content, "Delivered "+work) {
			t.Errorf("tool result %+v", r)
		}
	}
	// The process is still live (no idle close): its config holds the secret.
	configs, _ := filepath.Glob(filepath.Join(e.dir, "untether.mcp", "*.json"))
	if len(configs) != 1 {
		t.Fatalf("MCP configs %q", configs)
	}
	secret := secretOf(t, configs[0])
	if secret == "" || strings.Contains(p.out.String(), secret) {
		t.Errorf("the secret %q is empty or in the bot's log", secret)
	}
}

// TestContractBotSendFileOutsideRefused: a path outside the project (the
// bot's config file, /etc/hostname) sends nothing, and Claude receives the
// refusal as the tool's result.
func TestContractBotSendFileOutsideRefused(t *testing.T) {
	tool := "mcp__" + filesend.ServerName + "__" + filesend.ToolName
	e, api := realClaude(t,
		claudetest.Answer(claudetest.ToolUse(tool, map[string]any{"path": "/etc/hostname"})),
		claudetest.StepFunc(func(*claudetest.Request) claudetest.Reply {
			return claudetest.Answer(claudetest.ToolUse(tool, map[string]any{"path": "../untether.toml"}))
		}),
		claudetest.Say("I may not send those."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Send me /etc/hostname and the bot's config.")
	e.tg.AwaitMessage(90*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "I may not send those.") })
	for _, m := range []string{"sendPhoto", "sendDocument", "sendMediaGroup"} {
		if n := len(e.tg.CallsTo(m)); n != 0 {
			t.Errorf("%d %s calls", n, m)
		}
	}
	reqs := api.Requests()
	results := reqs[len(reqs)-1].ToolResults()
	want := []string{"/etc/hostname is outside this session's project", filepath.Join(e.dir, "untether.toml") + " is outside"}
	if len(results) != len(want) {
		t.Fatalf("tool results %+v", results)
	}
	for i, w := range want {
		if !results[i].IsError || !strings.HasPrefix(results[i].Content, "Not sent: ") || !strings.Contains(results[i].Content, w) {
			t.Errorf("tool result %+v, want an error with %q", results[i], w)
		}
	}
}

func putFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
