package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/voice"
)

// TestBotHelpersGetNoSecrets: git and the transcription command are
// started by the bot, as its user, so a command Claude runs could read
// their /proc/<pid>/environ while they run. They get the bot's environment
// without the secrets Claude never gets: the token (by name and by value)
// and the Anthropic key without API billing; the rest passes. Before, both
// inherited the bot's whole environment.
func TestBotHelpersGetNoSecrets(t *testing.T) {
	t.Setenv("UNTETHER_BOT_TOKEN", testToken)
	t.Setenv("COPY_OF_THE_TOKEN", "x"+testToken)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-api03-not-for-helpers")
	t.Setenv("KEEP_ME", "kept")
	dir := t.TempDir()
	dump := filepath.Join(dir, "env")
	script := writeFile(t, dir, "helper.sh", "#!/bin/sh\nenv >\""+dump+"\"\necho hello\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := load(t, map[string]string{"voice.command": `["` + script + `", "{file}"]`})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	helpers := map[string]func(){
		"git": func() {
			git := botConfig(cfg).Git
			git.Binary = script
			_, _ = git.Base(ctx, dir) // what the script prints is no tree; only its environment counts
		},
		"transcription command": func() {
			cmd, ok := voiceConfig(cfg).Transcriber.(*voice.Command)
			if !ok {
				t.Fatalf("transcriber %T", voiceConfig(cfg).Transcriber)
			}
			if _, err := cmd.Transcribe(ctx, filepath.Join(dir, "voice.ogg")); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, run := range helpers {
		_ = os.Remove(dump)
		run()
		env, err := os.ReadFile(dump)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, secret := range []string{testToken, "UNTETHER_BOT_TOKEN", "sk-ant-api03"} {
			if strings.Contains(string(env), secret) {
				t.Errorf("%s got %s in its environment", name, secret)
			}
		}
		if !strings.Contains(string(env), "KEEP_ME=kept") {
			t.Errorf("%s lost the rest of the environment:\n%s", name, env)
		}
	}
}
