package telegram

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/scope"
)

// LocalMachine is the name of the machine the bot runs on, the one
// Config's own fields describe.
const LocalMachine = "local"

// Machine is another place Claude can work: a host reached over a
// connection ([hosts.NAME]), with the engine that starts Claude there and
// the directories a chat may use there. Everything the bot does for a chat
// on that machine (sessions, /cwd, /get, uploads, git, the stall
// watchdog) goes through these, so the bot never asks which kind of host
// it is.
type Machine struct {
	Name   string
	Engine engine.Engine
	Host   host.Host
	// Git runs git there (its Host is the machine's).
	Git projects.Git
	// WorkDir and ProjectRoots are as Config's, paths on the machine.
	WorkDir      string
	ProjectRoots []string
	// UploadDir holds the files users send, a folder per chat, on the
	// machine.
	UploadDir string
	// MaxLive bounds the live Claude processes on the machine (default 4).
	MaxLive int
	// ClaudeVersion is what the CLI there said it was at start ("": not known).
	ClaudeVersion string
	// Probe tells whether the machine can be reached now and the version of
	// its CLI, for /host; nil: reachable, ClaudeVersion.
	Probe func(ctx context.Context) (claudeVersion string, err error)
	// Grant gives a process starting there the send_file tool (its MCP
	// config put there, the bot's socket forwarded there); nil: no tool
	// there. The local machine's is Config.Files.
	Grant func(filesend.Session) (*filesend.Grant, error)
	// Regrant gives back, by its Key, the grant of a held process a
	// previous bot started there (filesend.Server.Restore); nil: its
	// send_file does not work after a restart.
	Regrant func(sess filesend.Session, key string) (*filesend.Grant, error)
}

// machine is a Machine with the pool of its live processes.
type machine struct {
	Machine
	pool *pool
	// named: the bot has other machines, so its prompts say which one
	// this is (where).
	named bool
}

// newMachines builds the bot's machines: the local one from cfg and the
// engine New was given, then cfg.Machines. A name used twice is refused.
func newMachines(cfg *Config, eng engine.Engine) (map[string]*machine, error) {
	local := Machine{Name: LocalMachine, Engine: eng, Host: cfg.Host, Git: cfg.Git,
		WorkDir: cfg.WorkDir, ProjectRoots: cfg.ProjectRoots, UploadDir: cfg.UploadDir, MaxLive: cfg.MaxLive,
		ClaudeVersion: cfg.ClaudeVersion}
	out := map[string]*machine{}
	for _, m := range append([]Machine{local}, cfg.Machines...) {
		if _, dup := out[m.Name]; dup || m.Name == "" {
			return nil, fmt.Errorf("telegram: machine name %q is empty or used twice", m.Name)
		}
		if m.Engine == nil {
			return nil, fmt.Errorf("telegram: machine %q has no engine", m.Name)
		}
		m.Host = host.Or(m.Host)
		if m.Git.Host == nil {
			m.Git.Host = m.Host
		}
		if m.MaxLive <= 0 {
			m.MaxLive = 4
		}
		out[m.Name] = &machine{Machine: m, pool: newPool(m.MaxLive), named: len(cfg.Machines) > 0}
	}
	if _, ok := out[cfg.DefaultMachine]; cfg.DefaultMachine != "" && !ok {
		return nil, fmt.Errorf("telegram: the default machine %q is not configured", cfg.DefaultMachine)
	}
	return out, nil
}

// machineNames lists the machines, the local one first.
func (b *Bot) machineNames() []string {
	names := make([]string, 0, len(b.machines))
	for n := range b.machines {
		if n != LocalMachine {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return slices.Insert(names, 0, LocalMachine)
}

// defaultMachine is the machine of a chat that chose none ([claude] host).
func (b *Bot) defaultMachine() *machine {
	if m, ok := b.machines[b.cfg.DefaultMachine]; ok {
		return m
	}
	return b.machines[LocalMachine]
}

// machineFor is the machine the chat works on now: its own choice (/host)
// while that machine is configured, else the default.
func (b *Bot) machineFor(key string) *machine {
	return b.machineNamed(b.settings(key).Host)
}

func (b *Bot) machineNamed(name string) *machine {
	if m, ok := b.machines[name]; ok {
		return m
	}
	return b.defaultMachine()
}

// roots are the directories /cwd may point into there: project_roots, or
// the default working directory alone.
func (m *machine) roots() []string {
	if len(m.ProjectRoots) > 0 {
		return m.ProjectRoots
	}
	return []string{m.WorkDir}
}

// resolvedDir is dir with links resolved on the machine, as a process
// started there has it; dir itself when it cannot be resolved (the start
// then fails).
func (m *machine) resolvedDir(dir string) string {
	if r, err := m.Host.ResolveLinks(context.Background(), dir); err == nil {
		return r
	}
	return dir
}

// inRoots is scope.InRoots on the machine: whether the roots hold path,
// links resolved there.
func (m *machine) inRoots(path string, roots []string) scope.Verdict {
	return scope.Rule{Host: m.Host, Roots: roots}.Check(path)
}

// pastStore is the engine's store of past sessions there, nil when the
// engine keeps none: /sessions then lists only the chat's own. Asked at
// each use, never cached.
func (m *machine) pastStore() engine.SessionStore {
	if s, ok := m.Engine.(engine.Stores); ok {
		return s.SessionStore()
	}
	return nil
}

// unreachable says whether err is a machine that could not be reached (as
// opposed to Claude failing there): the chat's message is kept for /retry.
func unreachable(err error) bool { return errors.Is(err, host.ErrUnreachable) }

// where is the machine for the path rule: its host, and the folder of
// every chat's uploads there (another chat's files are private).
func (m *machine) where() approvals.Where {
	w := approvals.Where{Host: m.Host}
	if m.named {
		w.Name = m.Name
	}
	if m.UploadDir != "" {
		w.Private = []string{m.UploadDir}
	}
	return w
}

// unreachableError is a machine that could not be reached when a session
// was to start there.
type unreachableError struct {
	machine string
	err     error
}

func (e *unreachableError) Error() string { return e.machine + " is unreachable: " + e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// reason is why the machine did not answer, in the words of what tried
// (ssh's), without what the bot was doing at the time.
func (e *unreachableError) reason() string {
	if u := (*host.Unreachable)(nil); errors.As(e.err, &u) {
		return u.Reason
	}
	return e.err.Error()
}
