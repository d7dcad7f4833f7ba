package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/toolkinds"
	"github.com/untether/untether/transcript"
)

// TestScreenshots writes the pictures of docs/web.md: the home and chat
// pages of a real bot (fake Bot API, scripted engine) in chromium, with a
// conversation, a waiting approval, a month of spend and a schedule:
//
//	UNTETHER_SCREENSHOTS=$PWD/docs/img go test ./web -run Screenshots
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("UNTETHER_SCREENSHOTS")
	if dir == "" {
		t.Skip("UNTETHER_SCREENSHOTS is not set: no pictures to write")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("UNTETHER_SCREENSHOTS: %v", err)
	}
	answers := map[string]string{
		"What does the retry loop in fetch.go do?": "It retries a failed request **three times**, waiting longer each time:\n\n" +
			"1. 200 ms, then 400 ms, then 800 ms (`backoff` doubles it)\n2. only on a timeout or a 5xx answer\n\n" +
			"```go\nfor i := range 3 {\n\tif err = get(); !retryable(err) {\n\t\tbreak\n\t}\n\ttime.Sleep(backoff(i))\n}\n```\n\n" +
			"A 4xx answer is returned at once: retrying would not change it.",
		"Make the backoff configurable": "Done: `Config.Backoff` sets the first wait (default 200 ms) and `fetch_test.go` covers it. All tests pass.",
	}
	e := newE2E(t, func(tr *enginetest.Turn) {
		tr.Start("claude-sonnet")
		if strings.Contains(tr.Prompt, "release") {
			tr.Ask(engine.ApprovalRequest{RequestID: "req-shot", Kind: engine.RequestCommand, ToolName: "Bash",
				Input: json.RawMessage(`{"command":"git tag v1.4.0 && git push origin v1.4.0","description":"Tag and push the release"}`)})
			tr.Complete("tagged")
			return
		}
		tr.Emit(engine.ActionStarted{ToolUseID: "toolu-1", Tool: "Bash", Kind: toolkinds.Command, Title: "go test ./fetch/...",
			Input: json.RawMessage(`{"command":"go test ./fetch/..."}`)},
			engine.ActionCompleted{ToolUseID: "toolu-1", OK: true})
		tr.CompleteCosting(answers[tr.Prompt], 0.04)
	})
	e.serve()
	chat := tgtest.PrivateChat(e.user)
	log := transcript.New(e.store, redact.New(e.token))
	for i, prompt := range []string{"What does the retry loop in fetch.go do?", "Make the backoff configurable"} {
		e.tg.SendMessage(e.user, chat, prompt)
		for deadline := time.Now().Add(hang); ; time.Sleep(20 * time.Millisecond) {
			if turns, _ := log.Turns(context.Background(), "4242"); len(turns) == i+1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("turn %d was not recorded", i+1)
			}
		}
	}
	now := time.Now()
	for d, usd := range []float64{0.35, 0.90, 1.10, 1.95, 2.30, 2.42, 3.10} { // growing session totals, a day apart
		if day := now.AddDate(0, 0, d-7); day.Month() == now.Month() {
			if _, err := e.store.RecordTurnCost("4242", "shot-session", usd, day); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := e.store.AddSchedule(prefs.Schedule{Key: "4242", ChatID: e.user.ID, UserID: e.user.ID, Prompt: "Summarise yesterday's CI failures",
		Cron: "0 9 * * 1-5", Next: schedule.Rule{Cron: "0 9 * * 1-5"}.First(now, time.Local), Created: now}, 0); err != nil {
		t.Fatal(err)
	}
	e.tg.SendMessage(e.user, chat, "Tag the release")
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("reply_markup"), "callback_data") })

	ctx := browser(t)
	link := e.link(t)
	must(t, "sign in", chromedp.Do(ctx, chromedp.EmulateViewport(900, 1000), chromedp.Navigate(link), chromedp.WaitVisible(`ul.chats`)))
	shot := func(name string) {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must(t, "screenshot "+name, err)
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot("web-home.png")
	must(t, "open the chat", chromedp.Do(ctx, clickNow(`a[href="/chat/4242"]`), chromedp.WaitVisible(`button[value="approve"]`)))
	shot("web-chat.png")
}
