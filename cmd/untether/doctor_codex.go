package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// checkCodex checks Codex as checkClaude checks Claude, when [codex] offers
// it: the binary is found, answers --version in the environment the bot
// gives it, and its CODEX_HOME config.toml (provider, login) is readable.
func (d *doctor) checkCodex(ctx context.Context) []check {
	const name = "codex"
	if !d.cfg.Codex.Enabled() {
		return nil
	}
	install := "install Codex (npm install -g @openai/codex) or set [codex] binary to its full path " +
		"(`command -v codex` in your shell; a service often has a shorter PATH)"
	want := d.cfg.Codex.Binary
	bin, err := exec.LookPath(want)
	if err != nil {
		return []check{fail(name, fmt.Sprintf("%s not found: %v", want, errors.Unwrap(err)), install)}
	}
	env := codexOptions(d.cfg, enginePlace{}).ChildEnv()
	version, stderr, err := claudeVersion(ctx, bin, env, d.claudeTimeout)
	runIt := fmt.Sprintf("run `%s --version` as the user running untether to see why (its launcher needs node on PATH)", bin)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return []check{fail(name, fmt.Sprintf("%s --version did not answer within %s", bin, d.claudeTimeout), runIt)}
	case errors.Is(err, errNoVersion):
		return []check{fail(name, fmt.Sprintf("%s --version printed nothing", bin), runIt+"; is [codex] binary really Codex?")}
	case err != nil:
		return []check{fail(name, err.Error(), runIt, lastLines(stderr, 3)...)}
	}
	home := codexHome(env)
	cfgPath := filepath.Join(home, "config.toml")
	var settings map[string]any
	_, err = toml.DecodeFile(cfgPath, &settings)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []check{pass(name, "%s, version %s; %s has no config.toml (Codex's defaults and its own login)", bin, version, home)}
	case err != nil:
		return []check{fail(name, fmt.Sprintf("%s is unreadable: %v", cfgPath, err),
			"fix the file (Codex reads its provider and login there), or point [codex.env] CODEX_HOME at another folder")}
	}
	provider, _ := settings["model_provider"].(string)
	if provider == "" {
		provider = "openai"
	}
	return []check{pass(name, "%s, version %s; %s readable (provider %s)", bin, version, cfgPath, provider)}
}

// codexHome is where Codex reads its config in env: $CODEX_HOME, else
// ~/.codex.
func codexHome(env []string) string {
	home := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex")
}
