package claudefiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// maxSettings bounds a project settings file read for its rules.
const maxSettings = 1 << 20

// SettingsFiles are the project settings files Claude Code 2.1.330 takes
// permission rules from for a session in dir, in the order it reads them
// (measured: runner.TestContractProjectRulesWhichFiles): the local file of
// dir and, when dir is inside a git repository, of its top folder (where
// Always allow writes); never a plain parent folder's. The shared
// settings.json counts only in a folder the owner trusted (shared: the
// runner's ProjectSettings; without it the CLI ignores its rules).
func SettingsFiles(ctx context.Context, h host.Host, dir string, shared bool) []string {
	h = host.Or(h)
	dirs := []string{dir}
	if top := gitTop(ctx, h, dir); top != "" && top != dir {
		dirs = append(dirs, top)
	}
	var out []string
	for _, d := range dirs {
		if shared {
			out = append(out, filepath.Join(d, ".claude", "settings.json"))
		}
		out = append(out, filepath.Join(d, ".claude", "settings.local.json"))
	}
	return out
}

// gitTop is the nearest folder at or above dir holding .git (a folder, or
// a worktree's file), "" when none.
func gitTop(ctx context.Context, h host.Host, dir string) string {
	for d := filepath.Clean(dir); ; {
		if _, err := h.Lstat(ctx, filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// readOnlyTools are Claude Code's tools that only read: a rule allowing
// them lets nothing act.
var readOnlyTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true,
	"NotebookRead": true, "TodoWrite": true, "WebSearch": true, "Task": true, "Agent": true}

// ProjectRules reads the allow rules of dir's project settings files
// (SettingsFiles) that let a tool act without asking beyond reading —
// Bash, Write, Edit, MultiEdit, NotebookEdit, WebFetch, MCP tools, any
// tool this version does not know — and every additionalDirectories
// entry. A file that is missing is skipped; one that cannot be read or
// parsed is an error naming it (its rules are unknown, and the CLI may
// still apply them).
func ProjectRules(ctx context.Context, h host.Host, dir string, shared bool) ([]engine.ProjectRule, error) {
	h = host.Or(h)
	var out []engine.ProjectRule
	var errs []error
	for _, path := range SettingsFiles(ctx, h, dir, shared) {
		b, err := h.ReadFile(ctx, path, maxSettings)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", path, err))
			continue
		}
		var s struct {
			Permissions struct {
				Allow                 []json.RawMessage `json:"allow"`
				AdditionalDirectories []json.RawMessage `json:"additionalDirectories"`
			} `json:"permissions"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			errs = append(errs, fmt.Errorf("parse %s: %w", path, err))
			continue
		}
		for _, raw := range s.Permissions.Allow {
			if r := asString(raw); actsUnasked(r) {
				out = append(out, engine.ProjectRule{Rule: r, File: path})
			}
		}
		for _, raw := range s.Permissions.AdditionalDirectories {
			out = append(out, engine.ProjectRule{Rule: asString(raw), Dir: true, File: path})
		}
	}
	return out, errors.Join(errs...)
}

// asString is a JSON string's value, or the JSON itself for anything
// else: the CLI's reading of an odd entry is unknown, so it is shown.
func asString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// actsUnasked tells whether an allow rule lets a tool act: every rule but
// one naming a read-only tool (with or without a pattern).
func actsUnasked(rule string) bool {
	name := strings.TrimSpace(rule)
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	return !readOnlyTools[strings.TrimSpace(name)]
}
