package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// Codex on an SSH host ([hosts.NAME] codex): the distribution's sshd on
// 127.0.0.1 as another user, Codex's native binary copied where that user
// runs it, its CODEX_HOME a folder of that user's ([codex.env]) pointing at
// the fake Responses API. Skipped without sshd (root), UNTETHER_TEST_CODEX
// and UNTETHER_TEST_CLAUDE.
func codexOnHost(t *testing.T, respond codextest.Responder, claudeLines string) (*restartEnv, *codextest.API, string) {
	t.Helper()
	bin := codextest.Binary(t)
	claude := claudetest.Binary(t)
	s := sshtest.Start(t)
	xapi := codextest.New(t, respond)
	ch := xapi.OnHost(t, s, bin)
	remote, work, home := ch.Binary, ch.Work, ch.Home
	capi := claudetest.NewAPI(t)
	env, _ := claudetest.Env(t, capi.URL())
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = fmt.Sprintf("%q", a)
	}
	extra := fmt.Sprintf(`[hosts.box]
ssh = %q
ssh_args = [%s]
codex = %q
working_dir = %q
[codex]
binary = %q
default = true
[codex.env]
CODEX_HOME = %q
`, s.Dest, strings.Join(args, ", "), remote, work, bin, home)
	r := &restartEnv{}
	r.e2eEnv = newE2EOn(t, tgtest.New(t), claude, env, claudeLines+"use_api_billing = true\nhost = \"box\"\n", extra)
	t.Cleanup(func() { endHeld(t, filepath.Join(r.dir, "untether.db")) })
	return r, xapi, work
}

// A prompt on the host is answered by Codex there, and an approved
// command runs there, as the host's user; /status names the host and
// the engine.
func TestCodexOnSSHHost(t *testing.T) {
	r, api, work := codexOnHost(t, nil, "")
	p := r.start(t)
	defer stop(t, p)
	r.reply(r.say("hello there"), "echo: hello there")
	if n := len(api.Requests()); n != 1 {
		t.Errorf("the model got %d requests", n)
	}
	r.say("run: id -un > who.txt")
	prompt := r.awaitButtons(t, "Approve", "who.txt", 0)
	r.press(t, prompt, "Approve")
	r.tg.AwaitMessage(e2eWait, r.chat.ID, func(m tgtest.Message) bool { return m.ID > prompt.ID && answerHas(m, "done:") })
	if b, err := os.ReadFile(filepath.Join(work, "who.txt")); err != nil || strings.TrimSpace(string(b)) != sshtest.User {
		t.Errorf("who.txt on the host = %q, %v; want the host's user", b, err)
	}
	r.say("/status")
	st := r.awaitText(t, "Engine: codex")
	if !strings.Contains(st.Text, "box") {
		t.Errorf("/status does not name the host:\n%s", st.Text)
	}
}

// The bot killed while Codex on the host writes its answer: the restarted
// bot reaches its holder there through the bridge, and the answer arrives
// once.
func TestCodexDurableOnHostKillMidAnswer(t *testing.T) {
	r, api, _ := codexOnHost(t, slowAnswer, "durable = true\ndurable_wait = \"1m\"\n")
	p := r.start(t)
	m := r.say("Count slowly.")
	r.awaitDraft("lorem")
	kill(t, p)
	if n := r.withText("the end."); n != 0 {
		t.Fatalf("the answer came before the kill (%d)", n)
	}
	if hs := r.heldHandles(t); len(hs) != 1 {
		t.Fatalf("want one held Codex on the host: %+v", hs)
	}
	p = r.start(t)
	r.codexAnsweredOnce(t, api, m, "the end.")
	r.say("/new")
	stop(t, p)
}
