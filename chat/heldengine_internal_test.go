package chat

import (
	"testing"

	"github.com/untether/untether/engine"
)

// A held record of no engine was written before records named one, when
// only Claude Code (the machine's first engine) was held: it re-attaches
// with that engine even when the other engine is durable too and new
// chats default to it (Codex held since, [codex] default on). Handed to
// Codex, Claude's handle was refused and its running turn given up.
func TestHeldRecordOfNoEngineIsTheFirstEngines(t *testing.T) {
	claude := heldEngineFake{}
	ms, err := NewMachines(MachineConfig{Engine: claude, EngineName: "claude",
		Engines: map[string]engine.Engine{"codex": heldEngineFake{}}, DefaultEngine: "codex"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if h := ms.Local().heldEngine(""); h.EngineName != "claude" {
		t.Errorf("a held record of no engine re-attaches with %q, want claude", h.EngineName)
	}
}
