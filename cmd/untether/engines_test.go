package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/untether/untether/chat"
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
