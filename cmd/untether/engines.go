package main

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
)

// Engines: the agents the bot can run, each built from the config for one
// machine. As litestream builds its replica clients, a registry maps an
// engine's name to its constructor, and the wiring (run.go for this
// machine, hosts.go for each [hosts.NAME]) asks it for the configured one
// without naming an engine's package: adding an engine is a file of its
// own beside engine_claude.go, its config section, and a line in engines.

// enginePlace is the machine an engine is built for.
type enginePlace struct {
	// Name is the machine's: chat.LocalMachine or a [hosts.NAME].
	Name string
	Host host.Host
	// Remote is the [hosts.NAME] section and SSH its host; both nil for
	// this machine.
	Remote *HostConfig
	SSH    *sshhost.Host
	// Relinked, when set, runs after the connection to a machine with
	// held sessions was made again (send_file's socket forwarded again).
	Relinked func(context.Context)
	Log      *slog.Logger
}

// builtEngine is an engine and what the wiring needs of it besides.
type builtEngine struct {
	engine.Engine
	// Probe asks the agent on a remote machine for its version (/host);
	// nil for this machine.
	Probe func(ctx context.Context) (string, error)
}

// engineMaker builds an engine for a machine from the config.
type engineMaker func(cfg *Config, at enginePlace) builtEngine

// engines are the engines by name.
var engines = map[string]engineMaker{
	"claude": claudeEngine,
	"codex":  codexEngine,
}

// The engines' names.
const (
	engineClaude = "claude"
	engineCodex  = "codex"
)

// engineName is a machine's first engine: Claude Code, which every
// machine runs.
func engineName(*Config) string { return engineClaude }

// otherEngines names the engines the config offers beside the first on a
// machine: Codex with [codex] binary on this machine, with [hosts.NAME]
// codex on that host.
func otherEngines(cfg *Config, at enginePlace) []string {
	if at.Remote == nil && cfg.Codex.Enabled() || at.Remote != nil && at.Remote.Codex != "" {
		return []string{engineCodex}
	}
	return nil
}

// machineDefault is the engine of a chat that chose none on a machine
// offering names: the configured default where it is offered there.
func machineDefault(cfg *Config, names []string) string {
	if d := defaultEngine(cfg); slices.Contains(names, d) {
		return d
	}
	return ""
}

// defaultEngine is the engine of a chat that chose none: Codex with
// [codex] default = true, else Claude Code ("").
func defaultEngine(cfg *Config) string {
	if cfg.Codex.Enabled() && cfg.Codex.Default {
		return engineCodex
	}
	return ""
}

// newEngine builds the configured engine for a machine.
func newEngine(cfg *Config, at enginePlace) (builtEngine, error) {
	return buildEngine(cfg, engineName(cfg), at)
}

func buildEngine(cfg *Config, name string, at enginePlace) (builtEngine, error) {
	build, ok := engines[name]
	if !ok {
		return builtEngine{}, fmt.Errorf("engine %q for machine %q: no such engine", name, at.Name)
	}
	return build(cfg, at), nil
}

// moreEngines builds the machine's other engines, by name (chat.MachineConfig.Engines).
func moreEngines(cfg *Config, at enginePlace) (map[string]engine.Engine, error) {
	names := otherEngines(cfg, at)
	if len(names) == 0 {
		return nil, nil
	}
	out := map[string]engine.Engine{}
	for _, n := range names {
		b, err := buildEngine(cfg, n, at)
		if err != nil {
			return nil, err
		}
		out[n] = b.Engine
	}
	return out, nil
}
