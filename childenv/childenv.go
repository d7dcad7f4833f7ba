// Package childenv builds the environment an agent's process starts with:
// the bot's, less its secrets by name and by value, plus the engine's own
// additions. Every engine (runner for Claude Code, codex for Codex) builds
// it here, so the rule that secrets never reach an agent is one rule.
package childenv

import (
	"slices"
	"strings"

	"github.com/untether/untether/redact"
)

// Env describes a child's environment.
type Env struct {
	// Base is the environment to start from (KEY=VALUE).
	Base []string
	// Drop, when set, leaves out further variables of Base by name (an
	// engine's own rules: markers, keys that are not its agent's).
	Drop func(key string) bool
	// Extra entries are added after Base (the config's env section).
	Extra []string
	// Strip are the bot's secrets by name, left out of Base and Extra;
	// StripValues its secrets' values, removed under any name.
	Strip       []string
	StripValues []string
}

// Build is the environment: Base less Drop and Strip, then Extra less
// Strip, with every secret value removed.
func (e Env) Build() []string {
	out := make([]string, 0, len(e.Base)+len(e.Extra))
	for _, kv := range e.Base {
		key, _, _ := strings.Cut(kv, "=")
		if slices.Contains(e.Strip, key) || (e.Drop != nil && e.Drop(key)) {
			continue
		}
		out = append(out, kv)
	}
	for _, kv := range e.Extra {
		if key, _, _ := strings.Cut(kv, "="); !slices.Contains(e.Strip, key) {
			out = append(out, kv)
		}
	}
	return redact.New(e.StripValues...).Env(out)
}
