package claudefiles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// maxSettings bounds a project settings file read for its rules. The CLI
// reads any size (measured: a valid rule followed by 1 MiB of spaces
// applies); a file over this cap is told as unread (engine.ProjectRule's
// Unread), never skipped.
const maxSettings = 8 << 20

// SettingsFiles are the project settings files Claude Code 2.1.330 takes
// permission rules from for a session in dir, in the order it reads them
// (measured: runner.TestContractProjectRulesWhichFiles and
// TestContractProjectRulesWorktree): the local file of dir and, when dir
// is inside a git repository, of its top folder (where Always allow
// writes) — for a worktree, or any .git file naming a git directory, the
// top of the repository that directory belongs to, and the worktree's own
// top too; never a plain parent folder's. The shared settings.json counts
// only in a folder the owner trusted (shared: the runner's
// ProjectSettings; without it the CLI ignores its rules). unread are the
// .git and commondir files that exist but could not be followed: the CLI
// may take rules from a top they lead to, which the bot cannot name.
func SettingsFiles(ctx context.Context, h host.Host, dir string, shared bool) ([]string, []*fs.PathError) {
	h = host.Or(h)
	dirs := []string{filepath.Clean(dir)}
	tops, unread := gitTops(ctx, h, dir)
	for _, top := range tops {
		if !slices.Contains(dirs, top) {
			dirs = append(dirs, top)
		}
	}
	var out []string
	for _, d := range dirs {
		if shared {
			out = append(out, filepath.Join(d, ".claude", "settings.json"))
		}
		out = append(out, filepath.Join(d, ".claude", "settings.local.json"))
	}
	return out, unread
}

// readOnlyTools are Claude Code's tools that only read: a rule allowing
// them lets nothing act. fileReaders among them read files by path: a
// rule of theirs that reaches outside the project is told (it lets Claude
// read ~/.ssh or /etc unasked, which the bot otherwise asks about).
var (
	readOnlyTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true,
		"NotebookRead": true, "TodoWrite": true, "WebSearch": true, "Task": true, "Agent": true}
	fileReaders = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true}
)

// ProjectRules reads the allow rules of dir's project settings files
// (SettingsFiles) that let a tool act without asking beyond reading —
// Bash, Write, Edit, MultiEdit, NotebookEdit, WebFetch, MCP tools, any
// tool this version does not know, and a reading tool's rule that reaches
// outside the project — and every additionalDirectories entry. A file
// that is missing is skipped; one that exists but cannot be read or
// parsed is returned as an Unread rule (its rules are unknown, and the CLI
// may still apply them) and named in the error; so is a .git or commondir
// file that exists but could not be followed to the repository's top.
func ProjectRules(ctx context.Context, h host.Host, dir string, shared bool) ([]engine.ProjectRule, error) {
	h = host.Or(h)
	var out []engine.ProjectRule
	var errs []error
	files, unread := SettingsFiles(ctx, h, dir, shared)
	for _, path := range files {
		b, err := h.ReadFile(ctx, path, maxSettings)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			var rules []engine.ProjectRule
			if rules, err = fileRules(b, path); err == nil {
				out = append(out, rules...)
				continue
			}
		}
		errs = append(errs, fmt.Errorf("read the rules of %s: %w", path, err))
		out = append(out, engine.ProjectRule{File: path, Unread: true})
	}
	for _, perr := range unread {
		errs = append(errs, fmt.Errorf("find the repository top whose rules apply: %w", perr))
		out = append(out, engine.ProjectRule{File: perr.Path, Unread: true})
	}
	return out, errors.Join(errs...)
}

// fileRules are the rules of one settings file's text. The keys are looked
// up exactly, as the CLI's JSON.parse does (the last of duplicates wins):
// encoding/json's struct fields would also match "Allow", "PERMISSIONS"
// or "permiſsions", so a decoy key could hide the real one from the bot.
// A leading byte order mark is dropped (the CLI applies such a file).
func fileRules(b []byte, path string) ([]engine.ProjectRule, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var perms map[string]json.RawMessage
	if raw, ok := top["permissions"]; ok {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return nil, fmt.Errorf("parse permissions: %w", err)
		}
	}
	var out []engine.ProjectRule
	for _, r := range entries(perms["allow"]) {
		if actsUnasked(r) {
			out = append(out, engine.ProjectRule{Rule: r, File: path})
		}
	}
	for _, r := range entries(perms["additionalDirectories"]) {
		out = append(out, engine.ProjectRule{Rule: r, Dir: true, File: path})
	}
	return out, nil
}

// entries are the values of a JSON list; a value that is not a list (the
// CLI's reading of it is unknown) is one entry, as written.
func entries(raw json.RawMessage) []string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return []string{string(raw)}
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = asString(e)
	}
	return out
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

// actsUnasked tells whether an allow rule lets a tool act, or read
// outside the project: every rule but one naming a read-only tool, and a
// file-reading tool's rule with no pattern (any path), or one that is
// absolute ("//etc/**"), in a home ("~/…", "~user/…") or climbs ("../…").
// A pattern starting with one "/" is relative to the settings file's
// folder, and a plain one to the working directory: those stay inside.
func actsUnasked(rule string) bool {
	name, pattern, hasPattern := strings.Cut(strings.TrimSpace(rule), "(")
	name = strings.TrimSpace(name)
	if !readOnlyTools[name] {
		return true
	}
	if !fileReaders[name] {
		return false
	}
	pattern = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(pattern), ")"))
	if !hasPattern || pattern == "" {
		return true
	}
	return strings.HasPrefix(pattern, "//") || strings.HasPrefix(pattern, "~") ||
		slices.Contains(strings.FieldsFunc(pattern, func(r rune) bool { return r == '/' || r == '\\' }), "..")
}
