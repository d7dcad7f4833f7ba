package codex

import (
	"slices"
	"testing"
)

// Codex gets the bot's environment less its secrets: by name, by value
// under any name, and Claude's key, which is nothing of Codex's.
func TestChildEnvStripsSecrets(t *testing.T) {
	o := Options{
		Env:         []string{"PATH=/bin", "BOT_TOKEN=123:abc", "COPY=xK9-secret-value-77", "ANTHROPIC_API_KEY=sk-ant", "CODEX_HOME=/h"},
		ExtraEnv:    []string{"EXTRA=1"},
		StripEnv:    []string{"BOT_TOKEN"},
		StripValues: []string{"xK9-secret-value-77"},
	}
	got := o.childEnv()
	want := []string{"PATH=/bin", "CODEX_HOME=/h", "EXTRA=1"}
	if !slices.Equal(got, want) {
		t.Errorf("env = %q, want %q", got, want)
	}
}
