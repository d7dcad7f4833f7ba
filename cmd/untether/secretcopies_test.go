package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/telegram/tgtest"
)

// Secrets the bot holds, and copies of them under other names in its
// environment and in [claude.env].
const (
	hookSecret = "trigger-secret-0123456789"
	voiceKey   = "sk-voice-key-0123456789"
)

// secretCopiesConfig loads a config with a trigger and the voice API (so
// the bot holds a trigger secret and the voice key besides its token) in
// an environment holding a copy of each under another name.
func secretCopiesConfig(t *testing.T) *Config {
	t.Helper()
	t.Setenv("CI_HOOK_SECRET", hookSecret)
	t.Setenv("VOICE_KEY", voiceKey)
	t.Setenv("HOOK_COPY", hookSecret)
	t.Setenv("VOICE_COPY", "Bearer "+voiceKey)
	t.Setenv("TOKEN_COPY", testToken)
	t.Setenv("KEEP_ME", "kept")
	p := writeFile(t, t.TempDir(), "untether.toml", renderConfig(map[string]string{
		"voice.api_url": `"http://127.0.0.1:9/v1/audio/transcriptions"`, "voice.api_key_env": `"VOICE_KEY"`, "voice.model": `"whisper-1"`,
		"triggers.listen": `"127.0.0.1:0"`, "triggers.ci.chat": "42", "triggers.ci.secret_env": `"CI_HOOK_SECRET"`,
		"triggers.ci.prompt":    `"CI said {{body}}"`,
		"claude.env.HOOK_AGAIN": fmt.Sprintf("%q", hookSecret), "claude.env.EXTRA_SETTING": `"extra"`,
	}))
	cfg, err := loadConfig(p, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// leaked names the copies of secrets env holds.
func leaked(env []string) []string {
	var out []string
	for _, kv := range env {
		for _, s := range []string{hookSecret, voiceKey, testToken} {
			if strings.Contains(kv, s) {
				out = append(out, kv)
			}
		}
	}
	return out
}

// A copy of any secret the bot holds (its token, a trigger's secret, the
// voice key), under any name, reaches no program the bot starts: Claude
// here (its holder gets the same environment), Claude on a host ([claude.env]
// is all it gets of this machine), git and the transcription command
// (helperEnv), and the redactor knows each. Before, a trigger secret's copy
// reached all of them: only the token's and the voice key's were stripped.
func TestSecretCopiesStripped(t *testing.T) {
	cfg := secretCopiesConfig(t)
	h, err := sshhost.New(sshhost.Options{Name: "box", Dest: "me@box", ControlDir: t.TempDir(), Agent: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	envs := map[string][]string{
		"claude here":         runnerOptions(cfg, log).ChildEnv(),
		"claude on a host":    remoteEngine(cfg, "box", HostConfig{WorkingDir: "/srv"}, h, log).Base.ChildEnv(),
		"git and voice's cmd": helperEnv(cfg),
	}
	for name, env := range envs {
		if l := leaked(env); len(l) > 0 {
			t.Errorf("%s gets secrets: %q", name, l)
		}
		if want := "EXTRA_SETTING=extra"; name != "git and voice's cmd" && !strings.Contains(strings.Join(env, "\n"), want) {
			t.Errorf("%s lost %s", name, want)
		}
	}
	if !strings.Contains(strings.Join(envs["claude here"], "\n"), "KEEP_ME=kept") {
		t.Errorf("claude here lost the rest of the environment")
	}

	// git, run: its environment as the process has it.
	dir := t.TempDir()
	dump := filepath.Join(dir, "env")
	script := writeFile(t, dir, "git.sh", "#!/bin/sh\nenv >\""+dump+"\"\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	git := botConfig(cfg).Git
	git.Binary = script
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _ = git.Base(ctx, dir)
	got, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if l := leaked(strings.Split(string(got), "\n")); len(l) > 0 || !strings.Contains(string(got), "KEEP_ME=kept") {
		t.Errorf("git's environment: leaked %q, or lost KEEP_ME", l)
	}

	r := strings.Join(chatSecrets(cfg), "\n")
	for _, s := range []string{hookSecret, voiceKey, testToken} {
		if !strings.Contains(r, s) {
			t.Errorf("the redactor does not know %s", s)
		}
	}
}

// The real bot, its Claude (the fake CLI answering with its environment)
// started with a copy of a trigger's secret, of the voice key and of the
// token in the bot's environment and in [claude.env]: the answer shows
// none of them. Before, the trigger secret's copies were in it.
func TestProcessSecretCopiesNeverReachClaude(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	tg := tgtest.New(t)
	extra := fmt.Sprintf("[voice]\napi_url = \"http://127.0.0.1:9/v1/audio/transcriptions\"\napi_key_env = \"VOICE_KEY\"\nmodel = \"whisper-1\"\n\n"+
		"[triggers]\nlisten = %q\n\n[triggers.ci]\nchat = 5150\nsecret_env = \"CI_HOOK_SECRET\"\nprompt = \"CI said {{body}}\"\n", addr)
	claudeTOML := fmt.Sprintf("[claude.env]\nHOOK_AGAIN = %q\nEXTRA_SETTING = \"extra\"\n", hookSecret)
	e := newE2EOn(t, tg, testExecutable(t), nil, claudeTOML, extra)
	e.env = append(fakeClaudeEnv("environ"), "CI_HOOK_SECRET="+hookSecret, "VOICE_KEY="+voiceKey,
		"HOOK_COPY="+hookSecret, "VOICE_COPY=Bearer "+voiceKey, "TOKEN_COPY="+tg.Token(), "KEEP_ME=kept")
	p := e.start(t)
	defer func() {
		p.signal(syscall.SIGTERM)
		_ = p.wait(restartWait)
	}()
	e.tg.SendMessage(e.user, e.chat, "show me your environment")
	e.tg.AwaitMessage(restartWait, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, "KEEP_ME") })
	var texts []string
	for _, m := range e.tg.Messages(e.chat.ID) {
		texts = append(texts, m.Text)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "EXTRA_SETTING") {
		t.Fatalf("[claude.env] did not reach Claude:\n%s", all)
	}
	for _, name := range []string{"HOOK_COPY", "HOOK_AGAIN", "VOICE_COPY", "TOKEN_COPY", "CI_HOOK_SECRET", "VOICE_KEY"} {
		if strings.Contains(all, name) {
			t.Errorf("Claude got %s", name)
		}
	}
}
