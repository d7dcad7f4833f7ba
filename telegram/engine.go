package telegram

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/runner"
)

// Conn is one live Claude session as the bot sees it. *runner.Session
// implements it; tests and the load command plug in scripted fakes.
type Conn interface {
	Events() <-chan engine.Event
	Send(ctx context.Context, text string) error
	Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error
	Deny(ctx context.Context, requestID, message string, interrupt bool) error
	Interrupt(ctx context.Context) error
	SetPermissionMode(ctx context.Context, mode string) error
	Close(ctx context.Context) error
	SessionID() string
	Done() <-chan struct{}
}

// Spec says how to start a session for one chat.
type Spec struct {
	SessionKey     string
	Resume         string // Claude session id to resume, or ""
	Model          string
	PermissionMode string
	WorkDir        string // the chat's directory, or "" for the configured one
	// Partial asks for Claude's text as it is written (the CLI's
	// --include-partial-messages): the chat streams it (see Config.Stream).
	Partial bool
	// MCPConfig is the config of the bot's MCP server for this process
	// (the send_file tool), or "" when the bot offers none.
	MCPConfig string
}

// Engine starts Claude sessions.
type Engine interface {
	Start(ctx context.Context, spec Spec) (Conn, error)
	// Interactive reports whether sessions have a control channel
	// (approvals, interrupt, live mode switches).
	Interactive() bool
}

// RunnerEngine starts real Claude Code processes.
type RunnerEngine struct {
	// Base holds everything but the per-chat fields of Spec.
	Base runner.Options
}

// Interactive implements Engine.
func (e *RunnerEngine) Interactive() bool { return e.Base.Mode != runner.OneShot }

// Start implements Engine.
func (e *RunnerEngine) Start(ctx context.Context, spec Spec) (Conn, error) {
	opts := e.Base
	opts.Resume = spec.Resume
	if spec.Model != "" {
		opts.Model = spec.Model
	}
	if spec.PermissionMode != "" {
		opts.PermissionMode = spec.PermissionMode
	}
	if spec.WorkDir != "" {
		opts.WorkDir = spec.WorkDir
	}
	opts.IncludePartial = opts.IncludePartial || spec.Partial
	if spec.MCPConfig != "" {
		opts.MCPConfig = spec.MCPConfig
		// Allowed without a prompt: the bot itself checks every path.
		opts.AllowedTools = append(slices.Clone(opts.AllowedTools), filesend.AllowedTool)
	}
	if opts.Mode == runner.OneShot {
		return runner.NewOneShotConn(ctx, opts), nil
	}
	return runner.Start(ctx, opts)
}
