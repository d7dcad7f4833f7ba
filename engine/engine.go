// Package engine is the seam between the bot and what runs a coding agent.
// It holds the interface an engine implements (start or resume a session
// from a Spec; a Conn to talk to it) and the normalized events a session
// produces (event.go). It knows neither Claude Code nor Telegram:
// package runner implements it for Claude Code, engine/enginetest is an
// in-process fake, and the bot (package telegram) sees only this package.
//
// Extras only some engines have are optional interfaces a Conn or Engine
// may implement, asked for with a type assertion (see capabilities.go).
package engine

import (
	"context"
	"encoding/json"
	"errors"
)

var (
	// ErrClosed is returned by calls on a session that has ended or is
	// being closed.
	ErrClosed = errors.New("session is closed")
	// ErrUnknownRequest is returned when answering a request id that is
	// not pending (already answered, withdrawn, or never asked).
	ErrUnknownRequest = errors.New("no pending approval request with this id")
	// ErrNothingToRewind is returned by Rewinder.Rewind when the agent
	// has no checkpoint of that prompt (or nothing to undo since).
	ErrNothingToRewind = errors.New("nothing to rewind")
)

// Conn is one live session.
type Conn interface {
	// Events delivers what happens in the session, in order; it is closed
	// after Exited.
	Events() <-chan Event
	// Send gives the session a prompt (a turn starts).
	Send(ctx context.Context, text string) error
	// Allow and Deny answer an ApprovalRequest by its id.
	Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error
	Deny(ctx context.Context, requestID, message string, interrupt bool) error
	// Interrupt stops the running turn.
	Interrupt(ctx context.Context) error
	// SetPermissionMode changes the mode live.
	SetPermissionMode(ctx context.Context, mode string) error
	// Close ends the session (its process); Done is closed once it has.
	Close(ctx context.Context) error
	SessionID() string
	Done() <-chan struct{}
}

// Spec says how to start a session for one chat.
type Spec struct {
	SessionKey     string
	Resume         string // the engine's session id to resume, or ""
	Model          string
	PermissionMode string
	WorkDir        string // the chat's directory, or "" for the engine's default
	// Partial asks for the agent's text as it is written (Text events
	// with Partial set).
	Partial bool
	// MCPConfig is the config of the bot's MCP server for this session
	// (the send_file tool), or "" when the bot offers none.
	MCPConfig string
	// AllowedTools are tools the session may use without asking, beyond
	// the engine's own list (the bot's MCP tool, which checks every path
	// itself).
	AllowedTools []string
	// Uncapped starts the session without the per-turn spending cap the
	// engine was configured with (a turn the owner chose to run past it).
	Uncapped bool
}

// Engine starts sessions.
type Engine interface {
	Start(ctx context.Context, spec Spec) (Conn, error)
}

// Permission modes: what a session may do without asking, in the bot's
// words (Spec.PermissionMode, Conn.SetPermissionMode, SessionStarted and
// PermissionModeChanged). Each engine maps them to its agent's own and
// back (runner/modes.go). They are spelled as owners write [claude]
// permission_mode and as the state file keeps a chat's mode, which is
// also how Claude Code spells its own today.
const (
	// ModeDefault: anything that needs permission is asked.
	ModeDefault = "default"
	// ModeAcceptEdits: file changes in the project go without asking.
	ModeAcceptEdits = "acceptEdits"
	// ModePlan: the agent plans and changes nothing until its plan is
	// approved (a RequestPlan).
	ModePlan = "plan"
	// ModeBypass: nothing is asked.
	ModeBypass = "bypassPermissions"
	// ModeDontAsk: whatever is not allowed beforehand is refused.
	ModeDontAsk = "dontAsk"
	// ModeAuto: the agent's own classifier decides what to ask.
	ModeAuto = "auto"
)

// Modes are the permission modes, in the order help texts list them.
var Modes = []string{ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass, ModeDontAsk, ModeAuto}

// DefaultPermissionMode is the mode of a session when none is configured;
// an engine says it on every start and resume (a resumed session must not
// keep a mode it was given elsewhere).
const DefaultPermissionMode = ModeDefault
