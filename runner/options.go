package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/childenv"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// Mode selects how Claude Code is driven.
type Mode string

const (
	// Interactive keeps one process per session with a stream-json control
	// channel on stdin (pipes); approvals work.
	Interactive Mode = "interactive"
	// OneShot runs one process per turn with the prompt as an argument and a
	// PTY on stdin; there is no control channel, so no approvals.
	OneShot Mode = "oneshot"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxLineBytes   = 32 << 20
	DefaultCloseGrace     = 3 * time.Second
	DefaultTermGrace      = 5 * time.Second
	DefaultControlTimeout = 10 * time.Second
	DefaultStderrTail     = 8 << 10
)

// Options describe one Claude Code session.
type Options struct {
	// Binary is the claude executable (a name on PATH or a path).
	Binary  string
	WorkDir string
	Mode    Mode

	Model string
	// PermissionMode is passed as --permission-mode; "" passes
	// engine.DefaultPermissionMode (see permissionMode).
	PermissionMode string
	// Resume continues an earlier session by id (--resume).
	Resume string
	// SessionID fixes the id of a new session (--session-id); ignored with Resume.
	SessionID    string
	AllowedTools []string
	// AddDirs are directories outside WorkDir the CLI may use as its own
	// (--add-dir, once per directory): it reads there without asking.
	AddDirs         []string
	IncludePartial  bool
	SkipPermissions bool
	// MaxBudgetUSD, when > 0, is passed as --max-budget-usd. Measured
	// (docs/protocol.md): the CLI counts the spend of the whole process
	// since it started, not of one turn, and stops a turn after the model
	// call that reaches it (result subtype error_max_budget_usd); every
	// later turn of that process fails at once.
	MaxBudgetUSD float64
	// MCPConfig, when set, is passed as --mcp-config: a JSON file naming
	// MCP servers the CLI starts for this session (the bot's own, see
	// package filesend), on top of those the CLI's settings name.
	MCPConfig string
	ExtraArgs []string
	// ProjectSettings trusts the working directory as the CLI's -p default
	// does: the programs its .claude/settings.json,
	// .claude/settings.local.json and .mcp.json name (hooks, apiKeyHelper,
	// env, MCP servers) run. Off, the CLI is started with
	// --ignore-persisted-trust and treats the folder as one nobody trusted:
	// those programs do not run, while its CLAUDE.md, commands, skills and
	// permission rules (Always allow's, in the local settings) still load
	// (measured with 2.1.330: docs/protocol.md "Project settings";
	// docs/security.md "Trust, fifth pass").
	ProjectSettings bool

	// Env is the base environment (default os.Environ()). ExtraEnv entries
	// (KEY=VALUE) are added last and win.
	Env      []string
	ExtraEnv []string
	// UseAPIBilling keeps ANTHROPIC_API_KEY in the child's environment.
	UseAPIBilling bool
	// EnvAllow, when not nil, narrows Env to these names and EssentialEnv
	// (ANTHROPIC_API_KEY too with UseAPIBilling). ExtraEnv is added all the
	// same.
	EnvAllow []string
	// StripEnv names variables Claude never gets, from Env or ExtraEnv: the
	// bot's own secrets, which Claude, its tools and MCP servers would
	// otherwise inherit.
	StripEnv []string
	// StripValues are secret values Claude never gets under any name: a
	// variable whose value holds one, in any spelling the redactor knows,
	// is dropped (redact.Redactor.Env). Values shorter than redact.MinLen
	// are ignored (they would match ordinary values).
	StripValues []string
	// Redact, when set, removes secrets from the texts of events before the
	// runner shortens them (action titles, result excerpts, the stderr
	// tail), so no part of a secret is left at a cut; texts it passes
	// through whole (assistant text, results, errors) are redacted too.
	// Inputs of approval requests stay verbatim: they go back to the CLI.
	Redact func(string) string

	MaxLineBytes   int
	CloseGrace     time.Duration // after closing stdin, before SIGTERM
	TermGrace      time.Duration // after SIGTERM, before SIGKILL
	ControlTimeout time.Duration // for interrupt / set_permission_mode replies
	StderrTail     int

	Logger *slog.Logger

	// Host is the machine the CLI runs on: it is started there, in WorkDir
	// there, and its tools are found and signalled there. Nil: this one.
	Host host.Host

	// Hold, when set, makes interactive sessions durable: the CLI is
	// started by a holder that outlives the bot (package hold, held.go).
	Hold *Hold
}

// Hold says how durable sessions are held.
type Hold struct {
	// Placement: where the holder runs (on Host) and its orphan time.
	hold.Placement
	// Bridge: Host is another machine. The holder's socket is reached
	// through `Self hold bridge` started there (hold.DialVia), again when
	// the connection drops; the CLI's environment is laid over that
	// machine's login environment, as host/ssh does for every process.
	Bridge bool
	// Relinked, when set, is called after a bridged holder was reached
	// again (the connection had dropped): what rode on the old connection
	// (the send_file socket forwarded there) is made again.
	Relinked func(ctx context.Context)
	// ReattachWait bounds the tries of a bot started anew to reach a
	// bridged holder whose host does not answer (default
	// DefaultReattachWait); Reattach then says the host is unreachable.
	ReattachWait time.Duration
	// RelinkWait bounds the tries to reach a bridged holder again after
	// the connection dropped (default DefaultRelinkWait); the session then
	// ends with an error, its holder left to its Orphan time.
	RelinkWait time.Duration
}

// Defaults of Hold's waits.
const (
	DefaultRelinkWait   = hold.DefaultRelinkWait
	DefaultReattachWait = 20 * time.Second
)

func (o Options) withDefaults() Options {
	if o.Binary == "" {
		o.Binary = "claude"
	}
	if o.Mode == "" {
		o.Mode = Interactive
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.CloseGrace <= 0 {
		o.CloseGrace = DefaultCloseGrace
	}
	if o.TermGrace <= 0 {
		o.TermGrace = DefaultTermGrace
	}
	if o.ControlTimeout <= 0 {
		o.ControlTimeout = DefaultControlTimeout
	}
	if o.StderrTail <= 0 {
		o.StderrTail = DefaultStderrTail
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Env == nil && host.IsLocal(o.Host) {
		o.Env = os.Environ() // never on another machine: the bot's environment stays here
	}
	o.Host = host.Or(o.Host)
	return o
}

// managedFlags are set by the runner; extra args may not repeat them.
var managedFlags = []string{
	"-p", "--print", "--verbose", "--input-format", "--output-format",
	"--permission-prompt-tool", "--permission-mode", "--model", "--resume", "-r",
	"--continue", "-c", "--session-id", "--allowedTools", "--allowed-tools",
	"--include-partial-messages", "--dangerously-skip-permissions", "--sdk-url", "--add-dir",
	"--max-budget-usd", "--mcp-config",
}

// ErrManagedFlag is returned when ExtraArgs repeat a flag the runner manages.
var ErrManagedFlag = errors.New("extra argument clashes with a flag the runner manages")

func checkExtraArgs(args []string) error {
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		for _, m := range managedFlags {
			if name == m {
				return fmt.Errorf("%w: %q (set it through the runner's options instead)", ErrManagedFlag, a)
			}
		}
	}
	return nil
}

// permissionMode is the --permission-mode of every start and resume: the
// configured one, else engine.DefaultPermissionMode. It is always said, so that a
// resumed session runs in the bot's mode, never in the one it had where it
// was made (a desk session in bypassPermissions, say; see docs/protocol.md
// for what 2.1.330 does without the flag) nor in a defaultMode of Claude
// Code's settings. With SkipPermissions and no mode it is "": the owner's
// --dangerously-skip-permissions says the mode, as it always did.
func (o Options) permissionMode() string {
	switch {
	case o.PermissionMode != "":
		return o.PermissionMode
	case o.SkipPermissions:
		return ""
	}
	return engine.DefaultPermissionMode
}

// args builds the command line. prompt is only used in one-shot mode.
func (o Options) args(prompt string) ([]string, error) {
	if err := checkExtraArgs(o.ExtraArgs); err != nil {
		return nil, err
	}
	a := []string{"-p", "--verbose", "--output-format", "stream-json"}
	switch o.Mode {
	case Interactive:
		a = append(a, "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	case OneShot:
	default:
		return nil, fmt.Errorf("unknown runner mode %q (want %q or %q)", o.Mode, Interactive, OneShot)
	}
	if m := o.permissionMode(); m != "" {
		a = append(a, "--permission-mode", toClaudeMode(m))
	}
	if o.Model != "" {
		a = append(a, "--model", o.Model)
	}
	if o.Resume != "" {
		a = append(a, "--resume", o.Resume)
	} else if o.SessionID != "" {
		a = append(a, "--session-id", o.SessionID)
	}
	if len(o.AllowedTools) > 0 {
		a = append(a, "--allowedTools", strings.Join(o.AllowedTools, ","))
	}
	for _, d := range o.AddDirs {
		// One flag per directory: the flag takes several values, and a
		// directory must never be read as a flag or the other way round.
		a = append(a, "--add-dir", d)
	}
	if o.IncludePartial {
		a = append(a, "--include-partial-messages")
	}
	if o.SkipPermissions {
		a = append(a, "--dangerously-skip-permissions")
	}
	if o.MaxBudgetUSD > 0 {
		a = append(a, "--max-budget-usd", strconv.FormatFloat(o.MaxBudgetUSD, 'f', -1, 64))
	}
	if o.MCPConfig != "" {
		a = append(a, "--mcp-config", o.MCPConfig)
	}
	if !o.ProjectSettings {
		a = append(a, "--ignore-persisted-trust")
	}
	a = append(a, o.ExtraArgs...)
	if o.Mode == OneShot {
		a = append(a, "--", prompt)
	}
	return a, nil
}

// EssentialEnv is what Claude Code needs to run and to find the owner's
// login, kept with EnvAllow: the search path, who and where the user is,
// locale and terminal, the temporary folder and the time zone, and Claude
// Code's own config folder and subscription token.
var EssentialEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ",
	"CLAUDE_CONFIG_DIR", "CLAUDE_CODE_OAUTH_TOKEN",
}

// ChildEnv is the environment Claude is started with: the base environment
// narrowed and stripped as the fields above say, then ExtraEnv.
func (o Options) ChildEnv() []string {
	return childenv.Env{Base: o.Env, Drop: o.dropEnv, Extra: o.ExtraEnv, Strip: o.StripEnv, StripValues: o.StripValues}.Build()
}

// dropEnv says which of the bot's variables Claude Code does not get
// besides its secrets.
func (o Options) dropEnv(key string) bool {
	switch {
	case key == "CLAUDECODE":
		// A nested-session marker would make the CLI refuse to start.
		return true
	case key == "ANTHROPIC_API_KEY" && !o.UseAPIBilling:
		// Without API billing the CLI must use the user's subscription login.
		return true
	case o.EnvAllow != nil && !slices.Contains(o.EnvAllow, key) && !slices.Contains(EssentialEnv, key) &&
		(key != "ANTHROPIC_API_KEY" || !o.UseAPIBilling):
		return true
	}
	return false
}
