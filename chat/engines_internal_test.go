package chat

import (
	"context"
	"slices"
	"testing"

	"github.com/untether/untether/engine"
)

type plainEngine struct{}

func (plainEngine) Start(context.Context, engine.Spec) (engine.Conn, error) { return nil, nil }

type heldEngineFake struct{ plainEngine }

func (heldEngineFake) Reattach(context.Context, engine.Spec, string, uint64) (engine.Conn, error) {
	return nil, nil
}

// A machine with two engines hands out each by name, the default for a
// name it does not offer, one Pool for both; a held process is re-attached
// with the durable engine even when new chats default to the other.
func TestMachineEngines(t *testing.T) {
	claude, codex := heldEngineFake{}, plainEngine{}
	ms, err := NewMachines(MachineConfig{Engine: claude, EngineName: "claude",
		Engines: map[string]engine.Engine{"codex": codex}, DefaultEngine: "codex"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	m := ms.Local()
	if m.EngineName != "codex" || m.WithEngine("nope").EngineName != "codex" || m.WithEngine("claude").Engine != claude {
		t.Errorf("default %q, unknown → %q", m.EngineName, m.WithEngine("nope").EngineName)
	}
	if got := m.EngineNames(); !slices.Equal(got, []string{"codex", "claude"}) {
		t.Errorf("names = %v, want the default first", got)
	}
	if m.WithEngine("claude").Pool != m.Pool || m.Offered() != "codex" {
		t.Error("the engines do not share the machine's pool, or the engine is not offered")
	}
	if h := m.heldEngine(""); h.EngineName != "claude" {
		t.Errorf("held sessions of no named engine re-attach with %q, want the durable claude", h.EngineName)
	}
	if _, err := NewMachines(MachineConfig{Engine: claude, EngineName: "claude", DefaultEngine: "codex"}, nil, ""); err == nil {
		t.Error("a default engine that is not configured was taken")
	}
	// Both durable: a held record re-attaches with the engine it names.
	two, _ := NewMachines(MachineConfig{Engine: claude, EngineName: "claude",
		Engines: map[string]engine.Engine{"codex": heldEngineFake{}}, DefaultEngine: "claude"}, nil, "")
	if h := two.Local().heldEngine("codex"); h.EngineName != "codex" {
		t.Errorf("a held codex session re-attaches with %q", h.EngineName)
	}
	if h := two.Local().heldEngine("gone"); h != nil {
		t.Errorf("a held session of an engine no longer offered re-attaches with %q, want none (its handle is no other engine's)", h.EngineName)
	}
	one, _ := NewMachines(MachineConfig{Engine: claude}, nil, "")
	if one.Local().EngineNames() != nil || one.Local().Offered() != "" {
		t.Error("one unnamed engine offers a choice")
	}
}
