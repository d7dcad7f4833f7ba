// Package codex is OpenAI's Codex CLI as an engine (engine.Engine): one
// `codex app-server` process per session, spoken to in JSON-RPC 2.0 over
// its stdin and stdout (rpc.go). A session is a Codex thread, started or
// resumed in the chat's directory; a prompt is a turn; Codex's items and
// approval requests become the engine's events (events.go). The protocol
// facts it relies on were measured with Codex 0.171.0 against the fake of
// package codextest (docs/protocol-codex.md).
package codex

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/untether/untether/childenv"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// Options describe the Codex sessions of an Engine.
type Options struct {
	// Binary is the codex executable (a name on PATH or a path); its
	// launcher is a node script, so node must be on PATH.
	Binary  string
	WorkDir string
	Model   string
	// Env is the base environment (default os.Environ()); ExtraEnv
	// entries (KEY=VALUE) are added last. StripEnv and StripValues are
	// the bot's secrets, which Codex never gets (package childenv, as
	// for Claude). CODEX_HOME, when set,
	// says where Codex reads its config.toml and keeps its threads.
	Env         []string
	ExtraEnv    []string
	StripEnv    []string
	StripValues []string
	// Redact, when set, removes secrets from the texts of events.
	Redact func(string) string
	// RequestTimeout bounds Codex's answer to one of our requests
	// (initialize, thread/start, turn/start, turn/interrupt).
	RequestTimeout time.Duration
	// CloseGrace is how long Close waits after closing stdin before it
	// kills the process group.
	CloseGrace time.Duration
	Logger     *slog.Logger
	// Host is the machine Codex runs on (nil: this one): started there,
	// in WorkDir there; on another machine Env is laid over its login
	// environment (host/ssh), so Env holds none of this machine's.
	Host host.Host
	// Hold, when set, makes sessions durable: the app-server is started
	// by a holder that outlives the bot (package hold, held.go).
	Hold *Hold
	// ProjectConfig lets the project's own .codex/config.toml load (its
	// MCP servers start, its shell_environment_policy applies): Codex's
	// default once it trusts the folder. Off, every thread names the
	// working directory and the folders above it untrusted (trust.go).
	ProjectConfig bool
}

// Hold says how durable sessions are held.
type Hold struct {
	// Placement: where the holder runs (on Host) and its orphan time.
	hold.Placement
	// Bridge: Host is another machine, its holder reached through `Self
	// hold bridge` there (hold.DialVia), again when the connection drops
	// (hold.Link), as Claude's is.
	Bridge bool
	// RelinkWait bounds the tries to reach a bridged holder again after
	// the connection dropped (default hold.DefaultRelinkWait); the session
	// then ends with an error, its holder left to its Orphan time.
	RelinkWait time.Duration
}

// Defaults for Options left zero.
const (
	DefaultRequestTimeout = 60 * time.Second
	DefaultCloseGrace     = 3 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Binary == "" {
		o.Binary = "codex"
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.CloseGrace <= 0 {
		o.CloseGrace = DefaultCloseGrace
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Host == nil {
		o.Host = host.Local{}
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	return o
}

// childEnv is the environment codex app-server starts with: the bot's,
// less its secrets (by name and by value) and Claude's markers and key,
// which are nothing of Codex's.
func (o Options) childEnv() []string { return o.ChildEnv() }

// ChildEnv is the environment codex app-server starts with (the doctor
// runs `codex --version` in it).
func (o Options) ChildEnv() []string {
	if o.Env == nil {
		o.Env = os.Environ()
	}
	return childenv.Env{Base: o.Env, Drop: notCodexs, Extra: o.ExtraEnv, Strip: o.StripEnv, StripValues: o.StripValues}.Build()
}

// notCodexs are Claude Code's marker and key: nothing of Codex's.
func notCodexs(key string) bool {
	return key == "CLAUDECODE" || key == "ANTHROPIC_API_KEY"
}

// Engine is the Codex engine.
type Engine struct {
	Base Options
}

var _ engine.Engine = (*Engine)(nil)

// Start implements engine.Engine: a new app-server process, and in it a
// new thread or spec.Resume's thread, in spec.WorkDir.
func (e *Engine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	return start(ctx, e.options(spec), spec)
}

// options are the Base options with the chat's spec laid over them.
func (e *Engine) options(spec engine.Spec) Options {
	o := e.Base
	if spec.Model != "" {
		o.Model = spec.Model
	}
	if spec.WorkDir != "" {
		o.WorkDir = spec.WorkDir
	}
	return o.withDefaults()
}

// ResumeCommand implements engine.DeskHandoff.
func (e *Engine) ResumeCommand(dir, id string) string {
	return "cd " + shellQuote(dir) + " && codex resume " + shellQuote(id)
}

func shellQuote(s string) string {
	out := "'"
	for _, r := range s {
		if r == '\'' {
			out += `'\''`
			continue
		}
		out += string(r)
	}
	return out + "'"
}
