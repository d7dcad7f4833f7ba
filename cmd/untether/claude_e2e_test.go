package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// realClaude prepares the real CLI against a scripted fake Anthropic API.
func realClaude(t *testing.T, steps ...claudetest.Step) (*e2eEnv, *claudetest.API) {
	t.Helper()
	bin := claudetest.Binary(t)
	api := claudetest.NewAPI(t, steps...)
	env, _ := claudetest.Env(t, api.URL())
	e := newE2EOn(t, tgtest.New(t), bin, env, "use_api_billing = true\n", "")
	return e, api
}

func TestContractBotPlainAnswer(t *testing.T) {
	e, _ := realClaude(t, claudetest.Say("Hello from the **fake** model."))
	p := e.start(t)
	id := e.tg.SendMessage(e.user, e.chat, "Say hello.")
	final := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "Hello from the fake model.") && m.ReplyTo == id
	})
	if !strings.Contains(final.Source, "<b>fake</b>") {
		t.Errorf("final not rendered: %q", final.Source)
	}
	p.signal(syscall.SIGTERM)
	if err := p.wait(30 * time.Second); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

func TestContractBotApproveWritesFile(t *testing.T) {
	e, _ := realClaude(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "touch approved.txt", "description": "Create a file"})),
		claudetest.Say("Created it."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Create approved.txt")
	prompt := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "touch approved.txt") && hasButton(m, "Approve")
	})
	data := buttonData(t, prompt, "Approve")
	cq := e.tg.PressButton(e.user, e.chat, prompt.ID, data)
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "Created it.") })
	if _, err := os.Stat(filepath.Join(e.dir, "work", "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	if a, ok := e.tg.CallbackAnswer(cq); !ok || a.Text != "Approved" {
		t.Errorf("toast = %+v", a)
	}
	// The outcome is housekeeping: it may come after the answer.
	e.tg.Await(60*time.Second, "the prompt showing the outcome", func() bool {
		edited, _ := e.tg.Message(e.chat.ID, prompt.ID)
		return len(edited.Keyboard) == 0 && strings.Contains(edited.Text, "Approved")
	})
}

func TestContractBotDenyKeepsFileAway(t *testing.T) {
	e, api := realClaude(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "touch denied.txt"})),
		claudetest.Say("OK, I did not create it."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Create denied.txt")
	prompt := e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "touch denied.txt") && hasButton(m, "Deny")
	})
	e.tg.PressButton(e.user, e.chat, prompt.ID, buttonData(t, prompt, "Deny"))
	e.tg.AwaitMessage(60*time.Second, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "did not create") })
	if _, err := os.Stat(filepath.Join(e.dir, "work", "denied.txt")); err == nil {
		t.Error("a denied command ran")
	}
	reqs := api.Requests()
	last := reqs[len(reqs)-1]
	found := false
	for _, tr := range last.ToolResults() {
		if tr.IsError {
			found = true
		}
	}
	if !found {
		t.Error("the model did not receive the denial as an error tool result")
	}
}

func buttonData(t *testing.T, m tgtest.Message, label string) string {
	t.Helper()
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, label) {
				return b.CallbackData
			}
		}
	}
	t.Fatalf("no %q button in %+v", label, m.Keyboard)
	return ""
}

func hasButton(m tgtest.Message, label string) bool {
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, label) {
				return true
			}
		}
	}
	return false
}
