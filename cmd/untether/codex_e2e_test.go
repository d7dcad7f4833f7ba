package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// Tests of the bot with the real pinned Codex CLI (and the real Claude
// Code for the switch between them): the bot binary, a fake Telegram, a
// fake Responses API and a fake Anthropic API, both on 127.0.0.1. They
// skip without UNTETHER_TEST_CODEX and UNTETHER_TEST_CLAUDE (.ci/run sets
// both).

// realCodex prepares the bot with [codex] offered: Codex's CODEX_HOME
// points it at a fake Responses API answering with respond (nil:
// codextest.DefaultResponder); Claude Code answers with steps. codexFirst
// makes Codex the engine of new chats ([codex] default).
func realCodex(t *testing.T, respond codextest.Responder, codexFirst bool, sections string, steps ...claudetest.Step) (*e2eEnv, *codextest.API, *claudetest.API) {
	t.Helper()
	bin := codextest.Binary(t)
	claude := claudetest.Binary(t)
	capi := claudetest.NewAPI(t, steps...)
	env, _ := claudetest.Env(t, capi.URL())
	xapi := codextest.New(t, respond)
	env = append(env, "CODEX_HOME="+xapi.Home(t))
	codexTOML := fmt.Sprintf("[codex]\nbinary = %q\ndefault = %t\n%s", bin, codexFirst, sections)
	e := newE2EOn(t, tgtest.New(t), claude, env, "use_api_billing = true\n", codexTOML)
	return e, xapi, capi
}

// A prompt is answered by Codex; the footer and /status name it.
func TestCodexBotAnswers(t *testing.T) {
	e, api, _ := realCodex(t, nil, true, "")
	p := e.start(t)
	id := e.tg.SendMessage(e.user, e.chat, "say hello")
	final := e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool {
		return answerHas(m, "echo: say hello") && m.ReplyTo == id
	})
	if !strings.Contains(final.Text, "Codex") {
		t.Errorf("the footer does not name Codex:\n%s", final.Text)
	}
	if n := len(api.Requests()); n != 1 {
		t.Errorf("the fake model was asked %d times, want once", n)
	}
	e.tg.SendMessage(e.user, e.chat, "/status")
	st := e.awaitText(t, "Status")
	if !strings.Contains(st.Text, "Engine: codex") {
		t.Errorf("/status does not name the engine:\n%s", st.Text)
	}
	p.signal(syscall.SIGTERM)
	if err := p.wait(30 * time.Second); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// A command Codex wants to run is asked on the phone: Approve runs it and
// the turn goes on; Deny does not run it and the turn still ends with an
// answer (decline: the model is told and goes on).
func TestCodexBotApproveAndDeny(t *testing.T) {
	e, _, _ := realCodex(t, nil, true, "")
	e.start(t)
	work := filepath.Join(e.dir, "work")

	e.tg.SendMessage(e.user, e.chat, "run: echo yes > approved.txt")
	prompt := e.awaitButtons(t, "Approve", "approved.txt", 0)
	if got := e.press(t, prompt, "Approve"); got != "Approved" {
		t.Errorf("toast = %q", got)
	}
	done := e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool { return m.ID > prompt.ID && answerHas(m, "done:") })
	if b, err := os.ReadFile(filepath.Join(work, "approved.txt")); err != nil || strings.TrimSpace(string(b)) != "yes" {
		t.Errorf("the approved command did not run: %q, %v", b, err)
	}

	e.tg.SendMessage(e.user, e.chat, "run: echo no > denied.txt")
	prompt = e.awaitButtons(t, "Deny", "denied.txt", done.ID)
	if got := e.press(t, prompt, "Deny"); got != "Denied" {
		t.Errorf("toast = %q", got)
	}
	e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool { return m.ID > prompt.ID && answerHas(m, "done:") })
	if _, err := os.Stat(filepath.Join(work, "denied.txt")); err == nil {
		t.Error("a denied command ran")
	}
}

// /engine switches a chat from Claude Code to Codex and back: each answers
// in its turn, and back on Claude the chat's earlier Claude session goes
// on (the model sees the first prompt again).
func TestCodexBotEngineSwitchesAndBack(t *testing.T) {
	e, xapi, capi := realCodex(t, nil, false, "",
		claudetest.Say("Claude here, first."),
		claudetest.Say("Claude here, again."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "first for claude")
	e.awaitText(t, "Claude here, first.")

	e.tg.SendMessage(e.user, e.chat, "/engine")
	list := e.awaitButtons(t, "Codex", "This chat runs", 0)
	e.press(t, list, "Codex")
	e.tg.Await(e2eWait, "the list showing the switch", func() bool {
		m, _ := e.tg.Message(e.chat.ID, list.ID)
		return strings.Contains(m.Text, "now runs Codex")
	})
	e.tg.SendMessage(e.user, e.chat, "now for codex")
	e.awaitText(t, "echo: now for codex")
	if n := len(xapi.Requests()); n != 1 {
		t.Errorf("codex was asked %d times, want once", n)
	}
	e.tg.SendMessage(e.user, e.chat, "/status")
	if st := e.awaitText(t, "Engine: codex"); st.Text == "" {
		t.Error("no status")
	}

	e.tg.SendMessage(e.user, e.chat, "/engine claude")
	e.awaitText(t, "continues its earlier session")
	e.tg.SendMessage(e.user, e.chat, "again for claude")
	e.awaitText(t, "Claude here, again.")
	reqs := capi.Requests()
	if last := reqs[len(reqs)-1].AllText(); !strings.Contains(last, "first for claude") {
		t.Errorf("back on Claude the session did not resume: the model was sent %q", last)
	}
	e.tg.SendMessage(e.user, e.chat, "/status")
	e.awaitText(t, "Engine: claude")
}
