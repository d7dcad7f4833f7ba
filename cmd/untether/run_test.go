package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// The bot's own files inside a directory the CLI reads without asking are
// named at start: the path rule only sees reads the CLI asks about.
func TestPrivateInReach(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{Path: filepath.Join(dir, "untether.toml"), State: StateConfig{Path: filepath.Join(dir, "data", "untether.db")}}
	cfg.Claude.WorkingDir = filepath.Join(dir, "work")
	if got := privateInReach(cfg); len(got) != 0 {
		t.Errorf("outside every root: %q", got)
	}
	cfg.Claude.AddDirs = []string{filepath.Join(dir, "data")}
	if got := privateInReach(cfg); !slices.Equal(got, []string{cfg.State.Path}) {
		t.Errorf("state in add_dirs: %q", got)
	}
	cfg.Claude.WorkingDir = dir // e.g. working_dir = "~" with the config in ~/.untether
	if got := privateInReach(cfg); !slices.Equal(got, []string{cfg.Path, cfg.State.Path}) {
		t.Errorf("both under the working dir: %q", got)
	}
}

// The path rule's inputs reach the bot and the CLI.
func TestPathRuleWiring(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{Path: filepath.Join(dir, "untether.toml"),
		State:  StateConfig{Path: filepath.Join(dir, "untether.db"), Uploads: filepath.Join(dir, "uploads")},
		Claude: ClaudeConfig{AddDirs: []string{filepath.Join(dir, "docs")}}}
	bc := botConfig(cfg)
	// The MCP folder holds the send_file secrets: private like the state file.
	if !slices.Equal(bc.PrivatePaths, []string{cfg.Path, cfg.State.Path, filepath.Join(dir, "untether.mcp"), filepath.Join(dir, "untether.hold")}) || !slices.Equal(bc.AddDirs, cfg.Claude.AddDirs) ||
		bc.UploadDir != cfg.State.Uploads {
		t.Errorf("bot config: private %q, add dirs %q, uploads %q", bc.PrivatePaths, bc.AddDirs, bc.UploadDir)
	}
	if ro := runnerOptions(cfg, nil); !slices.Equal(ro.AddDirs, cfg.Claude.AddDirs) {
		t.Errorf("runner add dirs %q", ro.AddDirs)
	}
}
