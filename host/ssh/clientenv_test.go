package ssh_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/host/ssh"
)

// ssh gets a few variables of the bot's environment (its config, keys and
// agent, the locale it may send on), never one holding a secret of the
// bot's (Options.StripValues), whatever its name.
func TestSSHGetsNoSecretCopy(t *testing.T) {
	const secret = "trigger-secret-0123456789"
	t.Setenv("LANG", secret) // an owner's copy, sent on by a SendEnv LANG
	t.Setenv("LC_ALL", "C.UTF-8")
	dir, err := os.MkdirTemp("", "ce")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	dump := filepath.Join(dir, "env")
	script := filepath.Join(dir, "ssh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv > "+dump+"\nexit 255\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := ssh.New(ssh.Options{Name: "box", Dest: "me@box", ControlDir: filepath.Join(dir, "ctl"), Agent: "/bin/true", SSH: script,
		StripValues: []string{secret}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_ = h.Check(context.Background()) // the fake fails; its environment is what counts
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), secret) || !strings.Contains(string(env), "LC_ALL=C.UTF-8") {
		t.Errorf("ssh's environment:\n%s", env)
	}
}
