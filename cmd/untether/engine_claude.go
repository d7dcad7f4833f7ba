package main

import (
	"context"
	"log/slog"
	"os"
	"sort"

	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/runner"
	"github.com/untether/untether/runner/claudefiles"
)

// claudeEngine builds Claude Code (runner.Engine) for a machine: this one
// with the bot's environment, or a [hosts.NAME] with none of it.
func claudeEngine(cfg *Config, at enginePlace) builtEngine {
	if at.Remote == nil {
		return builtEngine{Engine: localClaude(cfg, at.Host, at.Log)}
	}
	eng := remoteEngine(cfg, at.Name, *at.Remote, at.SSH, at.Log)
	if eng.Base.Hold != nil {
		eng.Base.Hold.Relinked = at.Relinked
	}
	h, bin := at.SSH, eng.Base.Binary
	return builtEngine{Engine: eng, Probe: func(ctx context.Context) (string, error) { return probeHost(ctx, h, bin) }}
}

// localClaude is Claude Code on this machine. Its store and the user's
// commands are where the CLI it starts looks: [claude.env] may move them
// (CLAUDE_CONFIG_DIR).
func localClaude(cfg *Config, h host.Host, log *slog.Logger) *runner.Engine {
	base := runnerOptions(cfg, log)
	base.Host = h
	base.Hold = holdOptions(cfg, log)
	return &runner.Engine{Base: base, Files: claudefiles.Files{ConfigDir: claudefiles.ConfigDir(claudeEnv(cfg)), Host: h}}
}

// remoteEngine is Claude Code on the host: the CLI there, with the
// owner's [claude] choices but none of this machine's environment (the
// host's own login, HOME and PATH apply there; see host/ssh Start) and no
// add_dirs (paths of this machine).
func remoteEngine(cfg *Config, name string, hc HostConfig, h *sshhost.Host, log *slog.Logger) *runner.Engine {
	o := runnerOptions(cfg, log)
	o.Host = h
	o.Env = []string{} // none of this machine's (runner keeps it so for a remote host too)
	o.AddDirs = nil
	o.WorkDir = hc.WorkingDir
	o.Binary = hc.Claude
	if o.Binary == "" {
		o.Binary = "claude"
	}
	o.Hold = remoteHold(cfg, h)
	return &runner.Engine{Base: o, Files: claudefiles.Files{ConfigDir: hostClaudeDir(h), Host: h}}
}

func runnerOptions(cfg *Config, log *slog.Logger) runner.Options {
	mode := runner.Interactive
	if cfg.Claude.Mode == ModeOneshot {
		mode = runner.OneShot
	}
	keys := make([]string, 0, len(cfg.Claude.Env))
	for k := range cfg.Claude.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	extra := make([]string, 0, len(keys))
	for _, k := range keys {
		extra = append(extra, k+"="+cfg.Claude.Env[k])
	}
	return runner.Options{
		Binary:          cfg.Claude.Binary,
		WorkDir:         cfg.Claude.WorkingDir,
		Mode:            mode,
		AllowedTools:    cfg.Claude.AllowedTools,
		AddDirs:         cfg.Claude.AddDirs,
		SkipPermissions: cfg.Claude.DangerouslySkipPermissions,
		ProjectSettings: cfg.Claude.ProjectSettings,
		IncludePartial:  cfg.Claude.IncludePartialMessages,
		MaxBudgetUSD:    cfg.Claude.MaxTurnUSD,
		ExtraArgs:       cfg.Claude.ExtraArgs,
		Env:             os.Environ(),
		ExtraEnv:        extra,
		UseAPIBilling:   cfg.Claude.UseAPIBilling,
		EnvAllow:        cfg.Claude.EnvAllow,
		// Claude, its tools and MCP servers never get the bot's secrets,
		// under their names or any other: with the token a prompt-injected
		// session could act as the bot, with a trigger's secret sign its
		// own triggers.
		StripEnv:    stripEnv(cfg),
		StripValues: cfg.BotSecrets(),
		Redact:      redact.New(chatSecrets(cfg)...).String,
		Logger:      log,
	}
}
