package chat

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/untether/untether/engine"
)

// A machine may offer more than one engine (Claude Code, Codex). A
// conversation chooses one (/engine, prefs.Prefs.Engine); MachineFor hands
// out the machine with that engine, so everything that asks a machine for
// its engine (a start, a re-attach, the desk line, past sessions, the
// agent's commands) asks the conversation's without knowing there are
// several. The machine's processes are one pool whatever engine runs them.

// withEngines builds the machine with each of its engines.
func (m *Machine) withEngines() error {
	m.byEngine = map[string]*Machine{m.EngineName: m}
	for name, eng := range m.Engines {
		if name == "" || name == m.EngineName || eng == nil {
			return fmt.Errorf("machine %q: engine %q is unnamed, has no engine or is named twice", m.Name, name)
		}
		sib := *m
		sib.Engine, sib.EngineName = eng, name
		m.byEngine[name] = &sib
	}
	for _, sib := range m.byEngine {
		sib.byEngine = m.byEngine
	}
	if _, ok := m.byEngine[m.DefaultEngine]; m.DefaultEngine != "" && !ok {
		return fmt.Errorf("machine %q: the default engine %q is not configured", m.Name, m.DefaultEngine)
	}
	return nil
}

// WithEngine is the machine with the engine of that name; an engine not
// offered there (or "") is its default.
func (m *Machine) WithEngine(name string) *Machine {
	if sib, ok := m.byEngine[name]; ok {
		return sib
	}
	if sib, ok := m.byEngine[m.DefaultEngine]; ok {
		return sib
	}
	return m.byEngine[m.EngineName]
}

// EngineNames are the engines offered there, the default first; one
// unnamed engine is none to choose from.
func (m *Machine) EngineNames() []string {
	def := m.WithEngine("").EngineName
	names := []string{def}
	for n := range m.byEngine {
		if n != def && n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names[1:])
	if len(names) == 1 && names[0] == "" {
		return nil
	}
	return names
}

// ErrNoEngine is an engine the conversation's machine does not offer.
var ErrNoEngine = errors.New("no such engine")

// SwitchEngine moves the conversation to the engine name. Its session (the
// old engine's) ends cleanly: the session is parked at once and its
// process closes when the next turn starts (nothing runs: the switch waits
// for an idle conversation); switching back resumes the parked one if the
// store still has it, else the next message starts a fresh session
// (prefs.Store.SwitchEngine). Like MoveToMachine it waits for an idle
// conversation (ErrBusy); moved is false when it runs that engine already.
func (b *Core) SwitchEngine(key, name string) (resumed string, moved bool, err error) {
	m := b.MachineFor(key)
	if !slices.Contains(m.EngineNames(), name) {
		return "", false, ErrNoEngine
	}
	if name == m.EngineName {
		return "", false, nil
	}
	if b.Working(key) {
		return "", false, ErrBusy
	}
	resumed, err = b.store.SwitchEngine(key, m.EngineName, name)
	if err != nil {
		return "", false, fmt.Errorf("switch engine: %w", err)
	}
	// The old engine's process closes when the next turn starts, as after
	// a change of model (not dropSession: that would archive the session
	// the switch just made current again).
	b.RestartAfterTurn(key)
	return resumed, true, nil
}

// Offered is the machine's engine's name when a conversation has more
// than one to choose from there, "" otherwise: what the footer and
// /status name.
func (m *Machine) Offered() string {
	if len(m.EngineNames()) < 2 {
		return ""
	}
	return m.EngineName
}

// heldEngine is the machine with the engine of a held process: the one
// its record names (the process is that engine's, whatever engine the
// conversation chose since); nil when that engine is no longer offered
// (its handle means nothing to another engine: the process ends itself
// after its holder's orphan time). A record of no engine (written before
// records named one, when only Claude Code was held) is the machine's
// first engine's (Claude Code's, not the default's: Codex is durable too
// now); else the first durable engine's; without one, the machine's default.
func (m *Machine) heldEngine(name string) *Machine {
	if name != "" {
		return m.byEngine[name]
	}
	for n, sib := range m.byEngine {
		if _, other := m.Engines[n]; !other {
			if _, ok := sib.Engine.(engine.Durable); ok {
				return sib
			}
		}
	}
	for _, n := range m.EngineNames() {
		if _, ok := m.byEngine[n].Engine.(engine.Durable); ok {
			return m.byEngine[n]
		}
	}
	return m.WithEngine("")
}
