package chat

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/scope"
)

// Config is what the core works with, as plain values.
type Config struct {
	// WorkDir is the local machine's working directory; ProjectRoots bound
	// /cwd there (a conversation may work in one of them or below; none
	// means WorkDir only); MaxLive bounds its live processes; Git runs the
	// git CLI (/diff, /branch, the changes of a turn); ClaudeVersion is
	// what its CLI said it was at start.
	WorkDir      string
	ProjectRoots []string
	MaxLive      int
	// MaxStarts bounds the local machine's agent starts in flight
	// (Starts; 0: DefaultMaxStarts).
	MaxStarts     int
	Git           projects.Git
	ClaudeVersion string
	// UploadDir holds the files users send, a folder per conversation.
	UploadDir string
	// Host is the machine the agent works on: the path rule resolves links
	// there, uploads are written there. Nil: this one (host.Local).
	Host host.Host
	// Machines are the other machines a conversation may move to
	// ([hosts.NAME]); DefaultMachine is the one of a conversation that
	// chose none ("" is LocalMachine).
	Machines       []MachineConfig
	DefaultMachine string
	// EngineName, Engines and DefaultEngine are the local machine's
	// (MachineConfig's): the engine New is given, the others by name, and
	// the one of a conversation that chose none.
	EngineName    string
	Engines       map[string]engine.Engine
	DefaultEngine string
	// AddDirs are directories outside WorkDir the agent may read without
	// asking ([claude] add_dirs). PrivatePaths are the bot's own files
	// (state file, config file): a file tool touching them is always
	// asked, even inside WorkDir; other conversations' upload folders are
	// private too.
	AddDirs, PrivatePaths []string
	// The approvals broker's: SkipPerms asks nothing; AllowList is
	// allowed_tools + auto_approve; ApprovalWait bounds a prompt; the plan
	// cooldown runs from CooldownBase to CooldownMax.
	SkipPerms                 bool
	AllowList                 []string
	ApprovalWait              time.Duration
	CooldownBase, CooldownMax time.Duration

	// IdleTimeout closes a process with nothing to do after it (0: never).
	IdleTimeout time.Duration
	// AlbumWait is how long the items of an album are waited for after
	// the last one arrived, to run them as one prompt.
	AlbumWait time.Duration
	// StallAfter is how long the agent may say nothing while a tool runs
	// before the conversation is told (stall.go); negative: never.
	StallAfter time.Duration
	// MaxTurnUSD is [claude] max_turn_usd, which the engine passes to the
	// agent (Claude Code's --max-budget-usd); 0 means no limit. A turn
	// that stops on it says so, and each turn that follows a spending one
	// gets a new process, since the CLI counts the limit per process.
	MaxTurnUSD float64
	// DailyBudget stops new turns once today's turns cost it, in USD (0:
	// no limit).
	DailyBudget float64
	// MaxBacklogAge: a message accepted before a restart and older than
	// this is not run after it.
	MaxBacklogAge time.Duration
	// Model, PermissionMode and PlanMode (off | on | auto) are the
	// config's defaults of a conversation's settings; Stream is how the
	// agent's text shows while it is written: "drafts" (a live draft in
	// private chats, edits elsewhere), "edits" (the progress message) or
	// "off"; a conversation may choose its own (/stream).
	Model, PermissionMode, PlanMode, Stream string
	// Files, when set, gives each agent process the send_file tool: each
	// process gets a grant (its MCP config and secret), and the files it
	// sends are delivered to its conversation.
	Files FileServer
}

// FileServer is the send_file tool's server: *filesend.Server, or a
// stand-in in tests.
type FileServer interface {
	Open(filesend.Session) (*filesend.Grant, error)
	// Restore gives back the grant of a held process a previous bot
	// started, by its Key (docs/durability.md).
	Restore(sess filesend.Session, key string) (*filesend.Grant, error)
	Serve(ctx context.Context, deliver filesend.Deliver) error
}

// Access is who may run work: asked when a turn is about to run and when a
// held process is found after a restart (the allowlist may have changed).
type Access interface {
	// Turn is the check a turn meets before it runs: its chat and the
	// user it runs for (config: a run the owner set up, without a user).
	Turn(chatID, userID int64, config bool) (chatOK, userOK bool)
	// Held is Turn for a held process a restarted bot found.
	Held(rec prefs.HeldSession) (chatOK, userOK bool)
}

// Core is the conversation core: every conversation's session, its queue
// and turns, for any frontend (docs/architecture.md).
type Core struct {
	cfg      Config
	log      *slog.Logger
	store    *prefs.Store
	machines *Machines
	broker   *approvals.Broker
	access   Access
	surface  Surface
	redactor *redact.Redactor
	// limits is the last usage-limit status, for /usage.
	limits   limitWatch
	slowGit  projects.SlowDirs
	watchers watchers
	commands *CommandLists
	undo     undoBook   // what recent turns changed (undo.go)
	anyway   anywayBook // stopped runs offered to run anyway (anyway.go)

	baseCtx  context.Context
	stopping chan struct{}
	wg       sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session
}

// New builds the core: its machines (the local one works with eng) and its
// approvals broker, whose resolutions the owning frontend and the
// observers hear. isAllowed says who may answer a request. Start it with
// Start before anything runs.
func New(cfg Config, eng engine.Engine, store *prefs.Store, access Access, isAllowed func(userID int64) bool,
	surface Surface, redactor *redact.Redactor, log *slog.Logger) (*Core, error) {
	if log == nil {
		log = slog.Default()
	}
	if cfg.AlbumWait <= 0 {
		cfg.AlbumWait = time.Second
	}
	cfg.Host = host.Or(cfg.Host)
	local := MachineConfig{Engine: eng, EngineName: cfg.EngineName, Engines: cfg.Engines, DefaultEngine: cfg.DefaultEngine, Host: cfg.Host, Git: cfg.Git, WorkDir: cfg.WorkDir,
		ProjectRoots: cfg.ProjectRoots, UploadDir: cfg.UploadDir, MaxLive: cfg.MaxLive, MaxStarts: cfg.MaxStarts, ClaudeVersion: cfg.ClaudeVersion}
	machines, err := NewMachines(local, cfg.Machines, cfg.DefaultMachine)
	if err != nil {
		return nil, err
	}
	c := &Core{cfg: cfg, log: log, store: store, machines: machines, access: access,
		surface: surface, redactor: redactor, stopping: make(chan struct{}), sessions: map[string]*session{},
		baseCtx: context.Background()}
	c.commands = newCommandLists(func(name string) engine.CommandSource {
		if cs, ok := c.machines.Named(name).Engine.(engine.Commander); ok {
			return cs.CommandSource()
		}
		return nil
	})
	c.broker = approvals.New(approvals.Config{
		AllowList:       cfg.AllowList,
		Paths:           scope.Rule{Host: cfg.Host, Roots: cfg.AddDirs, Forbidden: append(slices.Clone(cfg.PrivatePaths), cfg.UploadDir)},
		SkipPermissions: cfg.SkipPerms,
		Timeout:         cfg.ApprovalWait,
		Cooldown:        c.storedCooldown(),
		TokenSeed:       c.approvalSeed(),
		IsAllowed:       isAllowed,
		OnResolved:      c.resolved,
		Logger:          log,
	})
	return c, nil
}

// Start sets the context the sessions live in (a started process outlives
// a request's context; ctx ending does not stop them: Stop does).
func (c *Core) Start(ctx context.Context) { c.baseCtx = context.WithoutCancel(ctx) }

// Stop tells running turns the bot stops and waits, until ctx ends, for
// every session to close (a held process is left running).
func (c *Core) Stop(ctx context.Context) error {
	close(c.stopping)
	for _, s := range c.all() {
		s.stop()
	}
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("sessions did not close in time")
	}
}

// Broker is the approvals broker the core's turns submit to.
func (c *Core) Broker() *approvals.Broker { return c.broker }

// Machines are the machines a conversation can work on.
func (c *Core) Machines() *Machines { return c.machines }

// MachineFor is the machine the conversation works on now: its own choice
// (/host) while that machine is configured, else the default; with the
// conversation's engine (/engine, engines.go).
func (c *Core) MachineFor(key string) *Machine {
	st := c.Settings(key)
	return c.machines.Named(st.Host).WithEngine(st.Engine)
}

// sessionFor returns the conversation's session, creating it (without a
// goroutine).
func (c *Core) sessionFor(key string, p Place) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sessions[key]
	if s == nil {
		s = newSession(c, key, p)
		c.sessions[key] = s
	}
	return s
}

// existing is the conversation's session, nil when it has none.
func (c *Core) existing(key string) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[key]
}

// all is a snapshot of every session.
func (c *Core) all() []*session {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*session, 0, len(c.sessions))
	for _, s := range c.sessions {
		out = append(out, s)
	}
	return out
}

// redact removes secrets from a text that leaves the bot.
func (c *Core) redact(s string) string { return c.redactor.String(s) }
