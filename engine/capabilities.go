package engine

import (
	"context"
	"path/filepath"
	"time"
)

// Capabilities some engines have. An Engine offers one by implementing
// its accessor (Stores, Commander, DeskHandoff); an accessor may answer
// nil when this configuration lacks it. A Conn may offer CPUMeter. The bot asks each time it needs
// one and goes without when it is missing: no store in /sessions, no
// project commands in the menu, no desk command in /status.

// Stores is an Engine that may keep a SessionStore.
type Stores interface {
	SessionStore() SessionStore // nil: none configured
}

// Commander is an Engine that may list the agent's own commands.
type Commander interface {
	CommandSource() CommandSource // nil: none
}

// Builtins is an Engine whose agent has slash commands of its own that
// make sense from a chat (Claude Code's /compact, /clear, …): the bot
// passes them on as prompts, and in a group lets them through without
// naming the bot, like the project's commands.
type Builtins interface {
	// BuiltinCommands names them, lower case, without the slash.
	BuiltinCommands() []string
}

// DeskHandoff is an Engine whose sessions can be continued at a terminal.
type DeskHandoff interface {
	// ResumeCommand is the shell command that continues session id in
	// dir at a terminal.
	ResumeCommand(dir, id string) string
}

// CPUMeter is a Conn whose agent's processes can be measured: the stall
// watch tells a tool that works (a build, tests) from one that waits (a
// password prompt) by the CPU time of the agent's process tree. Without
// it the CPU time is never known and every quiet spell counts as idle.
type CPUMeter interface {
	// TreeCPU is the CPU time the agent's process and every process
	// below it have used so far (user and system); an error when it
	// cannot be read now (no process between turns, a host that does not
	// answer).
	TreeCPU(ctx context.Context) (time.Duration, error)
}

// SessionStore is an engine's own record of past sessions on the machine
// (Claude Code's ~/.claude/projects): the ones the bot ran and the ones
// the owner ran at the desk, so a chat can pick one up (/sessions).
type SessionStore interface {
	// ListSessions returns the sessions that started in dir, newest
	// first, at most limit (0: all).
	ListSessions(ctx context.Context, dir string, limit int) ([]PastSession, error)
	// ReadSession reads one session of dir's store folder; it does not
	// check that the session started in dir (see PastSession.BelongsTo).
	ReadSession(ctx context.Context, dir, id string) (PastSession, error)
	// StatSession returns the session's time and size without reading it;
	// ok is false when the store has no such session.
	StatSession(dir, id string) (s PastSession, ok bool)
}

// PastSession is one session in an engine's store.
type PastSession struct {
	ID string
	// Modified is when the session was last written: the end of its last
	// turn, or now when an agent is working in it.
	Modified time.Time
	// FirstPrompt is the text that started it (a command as "/name args").
	FirstPrompt string
	// Turns counts the prompts the user sent.
	Turns int
	// Size is the size of the session's record in bytes: it grows with
	// every turn, so a change tells that someone else continued it.
	Size int64
	// Dir is the directory the session started in, "" when unknown.
	Dir string
}

// BelongsTo tells whether the session started in dir. Both paths are
// cleaned, links are not resolved: an engine records the physical
// directory, the bot's chat directories are resolved when set, and a path
// that differs only by a link hides the session rather than showing
// another directory's. A session that records no directory belongs to
// none.
func (s PastSession) BelongsTo(dir string) bool {
	return s.Dir != "" && filepath.Clean(s.Dir) == filepath.Clean(dir)
}

// CommandSource lists the agent's own slash commands in a working
// directory (Claude Code's custom commands and skills), which the bot
// passes through and offers in the chat's menu.
type CommandSource interface {
	// Commands reads them now: the project's first, then the user's.
	// The files are the project's: an implementation must never block on
	// one (see package safefile) and must return by ctx's deadline.
	Commands(ctx context.Context, dir string) []Command
}

// Command is one of the agent's own slash commands.
type Command struct {
	Name        string
	Description string
	// User is true for the user's own, false for the project's.
	User bool
}

// PromptIDs is a Conn that sends a prompt under an id the bot chooses
// (a UUID), the id Rewinder and the agent's own records know it by.
type PromptIDs interface {
	SendAs(ctx context.Context, id, text string) error
}

// Rewinder is a Conn that can undo the file changes the agent made since a
// prompt (PromptIDs): every file it wrote or edited since then comes back
// as it was, files it created are removed. Changes made through shell
// commands are not tracked. It works on a resumed session too.
type Rewinder interface {
	// Rewind undoes them; with dryRun it only says what it would undo.
	Rewind(ctx context.Context, promptID string, dryRun bool) (Rewind, error)
}

// Rewind is what a Rewinder undid or would undo.
type Rewind struct {
	// Files are the paths that come back (a dry run lists them; the agent
	// may not list them when it really undoes).
	Files []string
	// Insertions and Deletions count the lines (a dry run).
	Insertions, Deletions int
}

// SideAsker is a Conn whose agent answers a question aside while a turn
// runs: a separate model call that sees the conversation so far, which
// neither the running turn nor later turns see.
type SideAsker interface {
	Aside(ctx context.Context, question string) (string, error)
}

// ProjectRules is an Engine whose agent takes permission rules from a
// project's own files, where a cloned repository can plant them: the bot
// shows the owner those that let the agent act unasked before it starts
// the agent there (chat/projectrules.go).
type ProjectRules interface {
	// ProjectRules reads, now, the rules the agent would apply in dir
	// that let a tool act without asking beyond reading (run commands,
	// write files, fetch, MCP tools, more directories). The files are the
	// project's: an implementation must never block on one and must
	// return by ctx's deadline.
	ProjectRules(ctx context.Context, dir string) ([]ProjectRule, error)
}

// ProjectRule is one such rule, as its file writes it.
type ProjectRule struct {
	// Rule is the rule as written ("Bash", "Bash(npm run *)", "Write"),
	// or for a directory the folder as written.
	Rule string
	// Dir is true for a directory the agent may work in beyond the
	// project (Claude Code's additionalDirectories).
	Dir bool
	// File is the file the rule is in, on the agent's machine.
	File string
	// Unread is true when File exists but could not be read or parsed
	// (too big, not JSON, an error of the machine): its rules are
	// unknown, and the agent may still apply them. Rule is "" then.
	Unread bool
}
