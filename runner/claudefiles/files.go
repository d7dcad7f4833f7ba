// Package claudefiles reads Claude Code's own files on the machine: its
// session store (~/.claude/projects) and the custom commands and skills of
// a project and of the user, as the CLI writes and reads them (measured
// with 2.1.330, docs/protocol.md). Files offers them as the Claude Code
// engine's capabilities (engine.SessionStore, engine.CommandSource,
// engine.DeskHandoff). Every file is read through safefile: they are
// written by Claude's processes and by the project.
package claudefiles

import (
	"context"
	"errors"
	"slices"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/host"
)

// Files are Claude Code's own files under its configuration directory:
// the session store and the user's commands, with the project's commands
// in each working directory. They are the Claude Code engine's
// capabilities engine.SessionStore and engine.CommandSource. With no
// ConfigDir the store is empty and only the project's commands are read.
type Files struct {
	// ConfigDir is Claude Code's configuration directory as the CLI finds
	// it ($CLAUDE_CONFIG_DIR, else ~/.claude: see ConfigDir).
	ConfigDir string
	// Host is the machine Claude Code runs on, where its files are; nil
	// is this machine.
	Host host.Host
}

var (
	_ engine.SessionStore  = Files{}
	_ engine.CommandSource = Files{}
	_ engine.Stores        = Files{}
	_ engine.Commander     = Files{}
	_ engine.DeskHandoff   = Files{}
)

// ListSessions implements engine.SessionStore.
func (f Files) ListSessions(ctx context.Context, dir string, limit int) ([]engine.PastSession, error) {
	if f.ConfigDir == "" {
		return nil, nil
	}
	return ListSessions(ctx, f.Host, f.ConfigDir, dir, limit)
}

// ReadSession implements engine.SessionStore.
func (f Files) ReadSession(ctx context.Context, dir, id string) (engine.PastSession, error) {
	if f.ConfigDir == "" {
		return engine.PastSession{}, errors.New("no Claude Code configuration directory")
	}
	return ReadSession(ctx, f.Host, f.ConfigDir, dir, id)
}

// StatSession implements engine.SessionStore.
func (f Files) StatSession(dir, id string) (engine.PastSession, bool) {
	if f.ConfigDir == "" {
		return engine.PastSession{}, false
	}
	return StatSession(f.Host, f.ConfigDir, dir, id)
}

// ResumeCommand implements engine.DeskHandoff.
func (Files) ResumeCommand(dir, id string) string { return ResumeCommand(dir, id) }

// SessionStore implements engine.Stores: the store, when there is a
// configuration directory to find it in.
func (f Files) SessionStore() engine.SessionStore {
	if f.ConfigDir == "" {
		return nil
	}
	return f
}

// builtins are Claude Code's built-in commands that make sense from a
// chat: they work in -p mode (docs/protocol.md) and need no terminal.
var builtins = []string{"compact", "clear", "init", "context", "cost", "review", "security-review"}

// BuiltinCommands implements engine.Builtins.
func (Files) BuiltinCommands() []string { return slices.Clone(builtins) }

// CommandSource implements engine.Commander: the project's commands are
// read even without a configuration directory.
func (f Files) CommandSource() engine.CommandSource { return f }

// Commands implements engine.CommandSource.
func (f Files) Commands(ctx context.Context, dir string) []engine.Command {
	return Commands(ctx, f.Host, f.ConfigDir, dir)
}
