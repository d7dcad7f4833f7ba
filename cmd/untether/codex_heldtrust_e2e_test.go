package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// A held Codex whose thread loaded the project's .codex/config.toml
// ([codex] project_config = true then) serves no turn of a bot restarted
// with the option off: its app-server keeps the project's MCP servers and
// shell_environment_policy for its life, so the bot ends it at the start
// (it is between turns), and the next message resumes the thread in a new
// app-server opened with the project untrusted.
func TestCodexDurableStartedLessSafeEnds(t *testing.T) {
	r, _ := durableCodex(t, nil)
	setConfig(t, r.config, func(s string) string { return s + "project_config = true\n" })
	p := r.start(t)
	r.reply(r.say("Hi."), "echo: Hi.")
	stop(t, p)
	hs := r.heldHandles(t)
	if len(hs) != 1 || syscall.Kill(hs[0].Pid, 0) != nil {
		t.Fatalf("want one held Codex alive after the bot stopped: %+v", hs)
	}
	setConfig(t, r.config, func(s string) string { return strings.Replace(s, "project_config = true\n", "", 1) })
	p = r.start(t)
	r.tg.Await(durableWait, "the held codex opened less safe ended", func() bool { return syscall.Kill(hs[0].Pid, 0) != nil })
	r.reply(r.say("again"), "echo: again")
	stop(t, p)
	if again := r.heldHandles(t); len(again) != 1 || again[0].Pid == hs[0].Pid {
		t.Errorf("the next turn did not run in a new app-server: held %+v, before %+v", again, hs)
	}
	p = r.start(t)
	r.say("/new")
	r.holdersGone(t)
	stop(t, p)
}

// setConfig rewrites the bot's config file with edit.
func setConfig(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o600); err != nil {
		t.Fatal(err)
	}
}
