package main

import "sort"

// CodexConfig is [codex]: with a binary, the bot offers OpenAI's Codex CLI
// beside Claude Code (a chat switches with /engine). Codex reads its own
// $CODEX_HOME/config.toml (default ~/.codex) for its provider and login:
// [codex.env] may point CODEX_HOME elsewhere.
type CodexConfig struct {
	// Binary is the codex executable, a path or a name on PATH; "" offers
	// no Codex. Its launcher is a node script: node must be on PATH.
	Binary string `toml:"binary"`
	// Model is the model Codex asks for ("": Codex's own default).
	Model string `toml:"model"`
	// Env is added to the environment Codex starts with (after the bot's,
	// less its secrets).
	Env map[string]string `toml:"env"`
	// Default makes Codex the engine of chats that chose none (/engine);
	// without it new chats run Claude Code.
	Default bool `toml:"default"`
	// ProjectConfig lets a project's own .codex/config.toml load (its MCP
	// servers start, its shell_environment_policy applies); off, every
	// thread is started with the project untrusted (codex.Options).
	ProjectConfig bool `toml:"project_config"`
}

// Enabled says whether Codex is offered.
func (c CodexConfig) Enabled() bool { return c.Binary != "" }

// extraEnv is [codex.env] as KEY=VALUE, sorted.
func (c CodexConfig) extraEnv() []string {
	out := make([]string, 0, len(c.Env))
	for k, v := range c.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// validateCodex: a [codex] section without a binary would say Codex is
// offered and offer nothing.
func (c *Config) validateCodex(bad func(section, key, format string, args ...any)) {
	x := c.Codex
	if x.Binary == "" && (x.Model != "" || len(x.Env) > 0 || x.Default || x.ProjectConfig) {
		bad("codex", "binary", "is not set: the codex CLI (a path or a name on PATH) offers Codex; without it model, env, default and project_config mean nothing")
	}
}
