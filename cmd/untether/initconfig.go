package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	untether "github.com/untether/untether"
)

const initHeader = `# untether configuration, written by untether init. It holds the bot token: keep it private (mode 0600).
# init set bot_token, api_url and allowed_user_ids in [telegram], binary and working_dir in [claude];
# every other key shows its default. Durations are strings with a unit: "30s", "10m", "1h".
# Relative paths are relative to this file's directory. See docs/configuration.md.
`

// configText is untether.toml.example with the values init chose: the
// same comments on every key, so the file explains itself.
func configText(apiURL, token string, userID int64, claude, workDir string) (string, error) {
	set := map[string]map[string]string{
		"telegram": {
			"bot_token":        tomlString(token),
			"api_url":          tomlString(apiURL),
			"allowed_user_ids": "[" + strconv.FormatInt(userID, 10) + "]",
		},
		"claude": {
			"binary":      tomlString(claude),
			"working_dir": tomlString(workDir),
		},
	}
	lines := strings.Split(untether.ExampleConfig, "\n")
	// The example's opening comment is about copying and filling it in.
	start := 0
	for start < len(lines) && strings.HasPrefix(lines[start], "#") {
		start++
	}
	out := []string{strings.TrimSuffix(initHeader, "\n")}
	section := ""
	for _, line := range lines[start:] {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "["):
			section = strings.Trim(trimmed, "[]")
		case trimmed != "" && !strings.HasPrefix(trimmed, "#"):
			key, _, _ := strings.Cut(trimmed, "=")
			key = strings.TrimSpace(key)
			if v, ok := set[section][key]; ok {
				line = key + " = " + v
				delete(set[section], key)
			}
		}
		out = append(out, line)
	}
	for section, keys := range set {
		for key := range keys {
			// The example lost a key init fills in: a bug, caught by the tests.
			return "", fmt.Errorf("untether.toml.example has no [%s] %s", section, key)
		}
	}
	return strings.Join(out, "\n"), nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeConfig writes text to path with mode 0600, whole or not at all: a
// temporary file in the same directory, renamed over path.
func writeConfig(path, text string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the config's directory: %w", err)
	}
	f, err := os.CreateTemp(dir, ".untether-init-*") // mode 0600
	if err != nil {
		return fmt.Errorf("writing the config: %w", err)
	}
	_, err = f.WriteString(text)
	err = errors.Join(err, f.Chmod(0o600), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing the config %s: %w", path, err)
	}
	return nil
}
