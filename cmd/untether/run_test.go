package main

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/untether/untether/host/hosttest"
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
	cfg.State.Uploads = filepath.Join(dir, "uploads")
	data := filepath.Join(dir, "data")
	cfg.Claude.AddDirs = []string{data}
	// The holders' folder (every chat's journal) and the send_file one (the
	// sessions' secrets) are the state file's neighbours.
	if got, want := privateInReach(cfg), []string{cfg.State.Path, filepath.Join(data, "untether.mcp"), filepath.Join(data, "untether.hold")}; !slices.Equal(got, want) {
		t.Errorf("state in add_dirs: %q, want %q", got, want)
	}
	cfg.Claude.WorkingDir = dir // e.g. working_dir = "~" with the config in ~/.untether
	if got := privateInReach(cfg); !slices.Equal(got, []string{cfg.Path, cfg.State.Path, filepath.Join(data, "untether.mcp"),
		filepath.Join(data, "untether.hold"), cfg.State.Uploads}) {
		t.Errorf("all under the working dir: %q", got)
	}
}

// A host's own folder (host.Keeper) inside its working_dir or a project
// root there is named at start; one outside them is not.
func TestHostPrivateInReach(t *testing.T) {
	home := t.TempDir()
	kept := filepath.Join(home, ".cache", "untether")
	h := &hosttest.Recorder{Private: []string{kept}}
	if got, err := hostPrivateInReach(context.Background(), h, HostConfig{WorkingDir: home}); err != nil || !slices.Equal(got, []string{kept}) {
		t.Errorf("working_dir the home: %q, %v; want %q", got, err, kept)
	}
	code := filepath.Join(home, "code")
	if got, err := hostPrivateInReach(context.Background(), h, HostConfig{WorkingDir: code, ProjectRoots: []string{code}}); err != nil || len(got) != 0 {
		t.Errorf("working_dir a project: %q, %v; want none", got, err)
	}
	if got, err := hostPrivateInReach(context.Background(), h, HostConfig{WorkingDir: code, ProjectRoots: []string{code, home}}); err != nil || !slices.Equal(got, []string{kept}) {
		t.Errorf("the home among project_roots: %q, %v; want %q", got, err, kept)
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
