package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// TestContractBotReadOutsideAsked: the real bot with the default
// auto_approve and the real CLI. A read in an add_dirs directory is not
// asked (the CLI got --add-dir); a read of the bot's own config file (it
// holds the token) and a WebFetch come to the chat as prompts, the read
// saying it is outside the project, and denying them keeps the file's
// text away from the model. Before the path rule both were approved at
// once and the token reached the model.
func TestContractBotReadOutsideAsked(t *testing.T) {
	bin := claudetest.Binary(t)
	docs := t.TempDir()
	notes := filepath.Join(docs, "notes.md")
	if err := os.WriteFile(notes, []byte("notes for claude\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var config string // known once the environment is written
	read := func(p *string) claudetest.Step {
		return claudetest.StepFunc(func(*claudetest.Request) claudetest.Reply {
			return claudetest.Answer(claudetest.ToolUse("Read", map[string]any{"file_path": *p}))
		})
	}
	api := claudetest.NewAPI(t,
		read(&notes),
		read(&config),
		claudetest.Answer(claudetest.ToolUse("WebFetch", map[string]any{"url": "http://127.0.0.1:1/?d=token", "prompt": "p"})),
		claudetest.Say("Reads done."),
	)
	env, _ := claudetest.Env(t, api.URL())
	e := newE2EOn(t, tgtest.New(t), bin, env, "use_api_billing = true\nadd_dirs = ["+`"`+docs+`"`+"]\n", "")
	config = e.config
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Read the notes and the config")

	p := e.awaitButtons(t, "Deny", "untether.toml", 0)
	if want := "Outside the project: " + config; !strings.Contains(p.Text, want) {
		t.Errorf("prompt lacks %q:\n%s", want, p.Text)
	}
	t.Logf("prompt:\n%s", p.Text)
	e.press(t, p, "Deny")
	f := e.awaitButtons(t, "Deny", "127.0.0.1", p.ID)
	e.press(t, f, "Deny")
	e.awaitText(t, "Reads done.")

	trs := toolResults(api)
	if len(trs) != 3 || trs[0].IsError || !strings.Contains(trs[0].Content, "notes for claude") || !trs[1].IsError || !trs[2].IsError {
		t.Errorf("tool results = %+v, want the notes read and both others denied", trs)
	}
	for _, req := range api.Requests() {
		if strings.Contains(req.AllText(), e.tg.Token()) {
			t.Fatal("the bot token reached the model")
		}
	}
	for _, m := range e.tg.Messages(e.chat.ID) {
		if hasButton(m, "Deny") && answerHas(m, "notes.md") {
			t.Errorf("the read in add_dirs was asked: %q", m.Text)
		}
	}
}
