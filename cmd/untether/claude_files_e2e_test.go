package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// TestContractBotPhotoReachesTheModel: a photo sent to the bot is saved,
// the real CLI is told where, its Read tool opens it (auto-approved), and
// the image itself reaches the model.
func TestContractBotPhotoReachesTheModel(t *testing.T) {
	var mu sync.Mutex
	var told string // the saved path, as the prompt named it
	savedAt := regexp.MustCompile(`(?m)^- (/\S+) \(photo`)
	e, api := realClaude(t,
		claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
			for _, s := range req.UserTexts() {
				if m := savedAt.FindStringSubmatch(s); m != nil {
					mu.Lock()
					told = m[1]
					mu.Unlock()
					return claudetest.Answer(claudetest.ToolUse("Read", map[string]any{"file_path": m[1]}))
				}
			}
			return claudetest.Say("no file was named")
		}),
		claudetest.Say("A red square."),
	)
	e.start(t)
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		if i%4 == 0 || i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, img, nil); err != nil {
		t.Fatal(err)
	}
	e.tg.SendPhoto(e.user, e.chat, jpg.Bytes(), "What is in this picture?")
	e.tg.AwaitMessage(90*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "A red square.") })

	mu.Lock()
	path := told
	mu.Unlock()
	if path == "" {
		t.Fatal("the prompt did not name the saved photo")
	}
	reqs := api.Requests()
	if first := string(reqs[0].Raw); strings.Contains(first, `"media_type":"image/jpeg"`) {
		t.Fatal("the first request already mentions an image: the check below would prove nothing")
	}
	last := reqs[len(reqs)-1]
	raw := string(last.Raw)
	if !strings.Contains(raw, `"type":"image"`) || !strings.Contains(raw, `"media_type":"image/jpeg"`) {
		t.Errorf("the model did not receive the image after Read %s; tool results: %+v", path, last.ToolResults())
	}
	for _, tr := range last.ToolResults() {
		if tr.IsError {
			t.Errorf("Read failed: %s", tr.Content)
		}
	}
}

// TestContractBotCwdMovesClaude: after /cwd the real CLI runs in the chosen
// directory: it says so to the model, and a relative Bash command runs there.
func TestContractBotCwdMovesClaude(t *testing.T) {
	e, api := realClaude(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "touch made-here", "description": "Create a file"})),
		claudetest.Say("Done."),
	)
	sub := filepath.Join(e.dir, "work", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "/cwd sub")
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "Working directory: "+sub)
	})
	e.tg.SendMessage(e.user, e.chat, "Make the file.")
	prompt := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "touch made-here") && hasButton(m, "Approve")
	})
	e.tg.PressButton(e.user, e.chat, prompt.ID, buttonData(t, prompt, "Approve"))
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Done.") })
	if _, err := os.Stat(filepath.Join(sub, "made-here")); err != nil {
		t.Errorf("the command did not run in the chat's directory: %v", err)
	}
	if !strings.Contains(api.Requests()[0].AllText(), "Primary working directory: "+sub) {
		t.Errorf("the CLI did not tell the model it works in %s", sub)
	}
}
