package main

import (
	"github.com/untether/untether/codex"
	"github.com/untether/untether/redact"
)

// codexEngine builds Codex (codex.Engine) for a machine: on this one
// `codex app-server` with the bot's environment less its secrets
// (stripped by name and by value, as for Claude), [codex.env] added; on a
// [hosts.NAME] its codex there, with none of this machine's environment
// (the host's own login, HOME and PATH apply there), [codex.env] added,
// held there through a bridge as Claude is.
func codexEngine(cfg *Config, at enginePlace) builtEngine {
	o := codexOptions(cfg, at)
	o.Hold = codexHold(cfg, at)
	if at.Remote != nil {
		o.Host, o.Env, o.Binary, o.WorkDir = at.SSH, []string{}, at.Remote.Codex, at.Remote.WorkingDir
		o.Hold = nil
		if h := remoteHold(cfg, at.SSH); h != nil {
			o.Hold = &codex.Hold{Bridge: true, Placement: h.Placement}
		}
	}
	return builtEngine{Engine: &codex.Engine{Base: o}}
}

// codexHold makes Codex's sessions durable as Claude's are: under the
// same holder (this binary), in the same folder, while [claude] durable
// (the bot's switch for held sessions) is on.
func codexHold(cfg *Config, at enginePlace) *codex.Hold {
	h := holdOptions(cfg, at.Log)
	if h == nil {
		return nil
	}
	return &codex.Hold{Placement: h.Placement}
}

func codexOptions(cfg *Config, at enginePlace) codex.Options {
	return codex.Options{
		Binary:      cfg.Codex.Binary,
		WorkDir:     cfg.Claude.WorkingDir,
		Model:       cfg.Codex.Model,
		ExtraEnv:    cfg.Codex.extraEnv(),
		StripEnv:    stripEnv(cfg),
		StripValues: cfg.BotSecrets(),
		Redact:      redact.New(chatSecrets(cfg)...).String,
		Logger:      at.Log,
		// A project's own .codex/config.toml runs nothing unless the
		// owner trusts every project's (docs/security.md).
		ProjectConfig: cfg.Codex.ProjectConfig,
	}
}
