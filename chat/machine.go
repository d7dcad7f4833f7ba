package chat

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/safefile"
	"github.com/untether/untether/scope"
)

// LocalMachine is the name of the machine the bot runs on.
const LocalMachine = "local"

// MachineConfig is a place the agent can work: this machine, or a host
// reached over a connection ([hosts.NAME]), with the engine that starts the
// agent there and the directories a conversation may use there. Everything
// done for a conversation on that machine (sessions, /cwd, /get, uploads,
// git, the stall watchdog) goes through these, so nobody asks which kind
// of host it is.
type MachineConfig struct {
	Name   string
	Engine engine.Engine
	// EngineName names Engine ("claude"); Engines are the machine's other
	// engines by name, each a conversation may choose (/engine);
	// DefaultEngine is the engine of a conversation that chose none ("":
	// Engine). engines.go.
	EngineName    string
	Engines       map[string]engine.Engine
	DefaultEngine string
	Host          host.Host
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
	// MaxStarts bounds the agent starts in flight there (Starts; default
	// DefaultMaxStarts).
	MaxStarts int
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

// Machine is a configured machine with the pool of its live processes.
type Machine struct {
	MachineConfig
	Pool *Pool
	// Starts admits the starts of its agent processes.
	Starts *Starts
	// named: the bot has other machines, so its prompts say which one
	// this is (Where).
	named bool
	// byEngine are the machine with each of its engines, sharing Pool and
	// Starts (engines.go).
	byEngine map[string]*Machine
}

// Machines are the machines a conversation can work on, by name.
type Machines struct {
	byName map[string]*Machine
	def    string
}

// NewMachines builds the machines: local (named LocalMachine), then the
// others. A name used twice is refused; def is the machine of a
// conversation that chose none ("" is the local one).
func NewMachines(local MachineConfig, others []MachineConfig, def string) (*Machines, error) {
	local.Name = LocalMachine
	out := map[string]*Machine{}
	for _, m := range append([]MachineConfig{local}, others...) {
		if _, dup := out[m.Name]; dup || m.Name == "" {
			return nil, fmt.Errorf("machine name %q is empty or used twice", m.Name)
		}
		if m.Engine == nil {
			return nil, fmt.Errorf("machine %q has no engine", m.Name)
		}
		m.Host = host.Or(m.Host)
		if m.Git.Host == nil {
			m.Git.Host = m.Host
		}
		if m.MaxLive <= 0 {
			m.MaxLive = 4
		}
		if m.MaxStarts <= 0 {
			m.MaxStarts = DefaultMaxStarts()
		}
		mach := &Machine{MachineConfig: m, Pool: NewPool(m.MaxLive), Starts: NewStarts(m.MaxStarts), named: len(others) > 0}
		if err := mach.withEngines(); err != nil {
			return nil, err
		}
		out[m.Name] = mach.WithEngine("")
	}
	if _, ok := out[def]; def != "" && !ok {
		return nil, fmt.Errorf("the default machine %q is not configured", def)
	}
	return &Machines{byName: out, def: def}, nil
}

// Names lists the machines, the local one first.
func (ms *Machines) Names() []string {
	names := make([]string, 0, len(ms.byName))
	for n := range ms.byName {
		if n != LocalMachine {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return slices.Insert(names, 0, LocalMachine)
}

// Default is the machine of a conversation that chose none ([claude]
// host).
func (ms *Machines) Default() *Machine {
	if m, ok := ms.byName[ms.def]; ok {
		return m
	}
	return ms.byName[LocalMachine]
}

// Named is the machine of that name while it is configured, else the
// default: a conversation's choice that is no longer configured falls back.
func (ms *Machines) Named(name string) *Machine {
	if m, ok := ms.byName[name]; ok {
		return m
	}
	return ms.Default()
}

// Get is the machine of that name, if it is configured.
func (ms *Machines) Get(name string) (*Machine, bool) {
	m, ok := ms.byName[name]
	return m, ok
}

// Local is this machine.
func (ms *Machines) Local() *Machine { return ms.byName[LocalMachine] }

// Len is how many machines there are.
func (ms *Machines) Len() int { return len(ms.byName) }

// Roots are the directories /cwd may point into there: project_roots, or
// the default working directory alone.
func (m *Machine) Roots() []string {
	if len(m.ProjectRoots) > 0 {
		return m.ProjectRoots
	}
	return []string{m.WorkDir}
}

// ResolvedDir is dir with links resolved on the machine, as a process
// started there has it; dir itself when it cannot be resolved (the start
// then fails).
func (m *Machine) ResolvedDir(dir string) string {
	if r, err := m.Host.ResolveLinks(context.Background(), dir); err == nil {
		return r
	}
	return dir
}

// InRoots is scope.InRoots on the machine: whether the roots hold path,
// links resolved there.
func (m *Machine) InRoots(path string, roots []string) scope.Verdict {
	return scope.Rule{Host: m.Host, Roots: roots}.Check(path)
}

// PastStore is the engine's store of past sessions there, nil when the
// engine keeps none: /sessions then lists only the chat's own. Asked at
// each use, never cached.
func (m *Machine) PastStore() engine.SessionStore {
	if s, ok := m.Engine.(engine.Stores); ok {
		return s.SessionStore()
	}
	return nil
}

// Unreachable says whether err is a machine that could not be reached (as
// opposed to the agent failing there): the message is kept for /retry.
func Unreachable(err error) bool { return errors.Is(err, host.ErrUnreachable) }

// Where is the machine for the path rule: its host, and the folder of
// every chat's uploads there (another chat's files are private).
func (m *Machine) Where() approvals.Where {
	w := approvals.Where{Host: m.Host}
	if m.named {
		w.Name = m.Name
	}
	if m.UploadDir != "" {
		w.Private = []string{m.UploadDir}
	}
	return w
}

// UnreachableError is a machine that could not be reached when a session
// was to start there.
type UnreachableError struct {
	Machine string
	Err     error
}

func (e *UnreachableError) Error() string { return e.Machine + " is unreachable: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// Reason is why the machine did not answer, in the words of what tried
// (ssh's), without what the bot was doing at the time.
func (e *UnreachableError) Reason() string {
	if u := (*host.Unreachable)(nil); errors.As(e.Err, &u) {
		return u.Reason
	}
	return e.Err.Error()
}

// UploadFolder is the conversation's own upload folder there. The approvals
// path rule lets the agent read it, and no other conversation's.
func (m *Machine) UploadFolder(key string) string {
	if m.UploadDir == "" {
		return "" // no folder there: nothing is inside it
	}
	return filepath.Join(m.UploadDir, safefile.Name(key))
}

// Reach asks the machine whether it answers, and its agent's version,
// within wait.
func (m *Machine) Reach(ctx context.Context, wait time.Duration) (string, error) {
	if m.Probe == nil {
		return m.ClaudeVersion, nil
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return m.Probe(ctx)
}

// DeskCommand is the command that continues a session at the desk, in
// the directory the session belongs to; "" when the engine has none.
func (m *Machine) DeskCommand(sessionID, dir string) string {
	d, ok := m.Engine.(engine.DeskHandoff)
	if sessionID == "" || dir == "" || !ok {
		return ""
	}
	return d.ResumeCommand(dir, sessionID)
}

// Reached is a machine as Reach found it.
type Reached struct {
	Name          string
	Default       bool
	Live, MaxLive int
	WorkDir       string
	Version       string // its agent's, as it said
	Err           error  // it did not answer
}

// Reach looks at every machine at once, each within wait, the local one
// first.
func (ms *Machines) Reach(ctx context.Context, wait time.Duration) []Reached {
	names := ms.Names()
	out := make([]Reached, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		m := ms.Named(n)
		out[i] = Reached{Name: n, Default: n == ms.Default().Name, Live: m.Pool.Live(), MaxLive: m.MaxLive, WorkDir: m.WorkDir}
		wg.Go(func() { out[i].Version, out[i].Err = m.Reach(ctx, wait) })
	}
	wg.Wait()
	return out
}
