package main

import (
	"context"
	"log/slog"
	"slices"
	"testing"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/codex"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/runner"
)

// The registry builds the configured engine (Claude Code) for this machine
// and for a [hosts.NAME] from the same config: here on the given host with
// no probe, there on the ssh host in its working directory, with a probe
// and the held sessions' relink hook.
func TestEngines(t *testing.T) {
	cfg := secretCopiesConfig(t)
	log := slog.New(slog.DiscardHandler)
	if _, ok := engines[engineName(cfg)]; !ok || engineName(cfg) != "claude" {
		t.Fatalf("engine %q is not registered", engineName(cfg))
	}
	local, err := newEngine(cfg, enginePlace{Name: chat.LocalMachine, Host: host.Local{}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	re, ok := local.Engine.(*runner.Engine)
	if !ok || re.Base.Host != (host.Local{}) || local.Probe != nil {
		t.Errorf("this machine's engine = %#v (probe %v), want Claude Code on host.Local without a probe", local.Engine, local.Probe != nil)
	}

	h, err := sshhost.New(sshhost.Options{Name: "box", Dest: "me@box", ControlDir: t.TempDir(), Agent: "/bin/true"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Claude.Durable = true
	relinked := false
	remote, err := newEngine(cfg, enginePlace{Name: "box", Host: h, SSH: h, Remote: &HostConfig{WorkingDir: "/srv"}, Log: log,
		Relinked: func(context.Context) { relinked = true }})
	if err != nil {
		t.Fatal(err)
	}
	rr, ok := remote.Engine.(*runner.Engine)
	if !ok || rr.Base.Host != h || rr.Base.WorkDir != "/srv" || rr.Base.Binary != "claude" || remote.Probe == nil {
		t.Fatalf("the host's engine = %#v (probe %v), want Claude Code on the ssh host in /srv with a probe", remote.Engine, remote.Probe != nil)
	}
	if rr.Base.Hold == nil || rr.Base.Hold.Relinked == nil {
		t.Fatalf("a durable host's engine has no relink hook: %+v", rr.Base.Hold)
	}
	rr.Base.Hold.Relinked(context.Background())
	if !relinked {
		t.Error("the relink hook is not the wiring's")
	}
}

// [codex] binary offers Codex beside Claude Code on this machine only,
// with [codex] model and env and the bot's secrets stripped; [codex]
// default makes it the engine of chats that chose none.
func TestCodexEngine(t *testing.T) {
	cfg := secretCopiesConfig(t)
	log := slog.New(slog.DiscardHandler)
	here := enginePlace{Name: chat.LocalMachine, Host: host.Local{}, Log: log}
	if more, err := moreEngines(cfg, here); err != nil || more != nil || defaultEngine(cfg) != "" {
		t.Fatalf("without [codex]: engines %v (%v), default %q; want none", more, err, defaultEngine(cfg))
	}
	cfg.Codex = CodexConfig{Binary: "/opt/codex", Model: "m1", Env: map[string]string{"CODEX_HOME": "/h"}}
	more, err := moreEngines(cfg, here)
	if err != nil {
		t.Fatal(err)
	}
	ce, ok := more["codex"].(*codex.Engine)
	if !ok || len(more) != 1 {
		t.Fatalf("engines = %#v, want codex", more)
	}
	o := ce.Base
	if o.Binary != "/opt/codex" || o.Model != "m1" || !slices.Equal(o.ExtraEnv, []string{"CODEX_HOME=/h"}) ||
		!slices.Contains(o.StripEnv, envBotToken) || len(o.StripValues) == 0 {
		t.Errorf("codex options = %+v", o)
	}
	// A project's own .codex/config.toml loads only when the owner says so.
	if o.ProjectConfig {
		t.Error("ProjectConfig on without [codex] project_config")
	}
	cfg.Codex.ProjectConfig = true
	if more, _ := moreEngines(cfg, here); !more["codex"].(*codex.Engine).Base.ProjectConfig {
		t.Error("[codex] project_config = true does not reach codex.Options")
	}
	if defaultEngine(cfg) != "" {
		t.Errorf("default engine %q without [codex] default", defaultEngine(cfg))
	}
	cfg.Codex.Default = true
	if defaultEngine(cfg) != "codex" {
		t.Errorf("default engine %q with [codex] default", defaultEngine(cfg))
	}
	if more, _ := moreEngines(cfg, enginePlace{Name: "box", Remote: &HostConfig{WorkingDir: "/srv"}, Log: log}); more != nil {
		t.Errorf("a host offers %v: Codex runs on this machine only", more)
	}
}
