package runner

import (
	"context"
	"slices"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudefiles"
)

// Engine is the Claude Code engine: it starts real Claude Code processes
// (interactive sessions, or one process per turn in one-shot mode).
type Engine struct {
	// Base holds everything but the per-chat fields of engine.Spec.
	Base Options
	// Files are Claude Code's own files (its session store, custom
	// commands): the engine's capabilities engine.SessionStore and
	// engine.CommandSource.
	claudefiles.Files
}

var _ engine.Engine = (*Engine)(nil)

// Start implements engine.Engine.
func (e *Engine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	opts := e.options(spec)
	if opts.Mode == OneShot {
		return NewOneShotConn(ctx, opts), nil
	}
	s, err := Start(ctx, opts)
	if err != nil {
		return nil, err
	}
	return s.conn(), nil
}

// options are the Base options with spec's per-chat fields.
func (e *Engine) options(spec engine.Spec) Options {
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
	}
	if len(spec.AllowedTools) > 0 {
		opts.AllowedTools = append(slices.Clone(opts.AllowedTools), spec.AllowedTools...)
	}
	if spec.Uncapped {
		opts.MaxBudgetUSD = 0
	}
	return opts
}

var _ engine.ProjectRules = (*Engine)(nil)

// ProjectRules implements engine.ProjectRules: the allow rules of dir's
// project settings files, on the engine's machine, as the CLI started
// with these options reads them (the shared file only with
// ProjectSettings).
func (e *Engine) ProjectRules(ctx context.Context, dir string) ([]engine.ProjectRule, error) {
	return claudefiles.ProjectRules(ctx, e.Files.Host, dir, e.Base.ProjectSettings)
}
