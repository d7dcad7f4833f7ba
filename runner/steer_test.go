package runner

import (
	"testing"

	"github.com/untether/untether/engine"
)

// command_lifecycle lines as CLI 2.1.330 writes them (measured,
// docs/protocol.md "Steer") become PromptState events; others nothing.
func TestDecodeLifecycle(t *testing.T) {
	const id = "22222222-2222-4222-8222-222222222222"
	for state, want := range map[string]engine.PromptStage{
		"queued": engine.PromptQueued, "started": engine.PromptStarted,
		"completed": engine.PromptCompleted, "cancelled": engine.PromptCancelled,
	} {
		line := `{"type":"command_lifecycle","command_uuid":"` + id + `","state":"` + state +
			`","uuid":"7892f1b0-78b9-4be2-8fcf-a5cc60a3f19e","session_id":"54fa45ed-fdc0-4de3-a690-964936bd65bd"}`
		d, err := newDecoder("/w").decode([]byte(line))
		if err != nil || len(d.events) != 1 || d.events[0] != (engine.PromptState{ID: id, Stage: want}) {
			t.Errorf("%s: %+v, %v", state, d.events, err)
		}
	}
	d, err := newDecoder("/w").decode([]byte(`{"type":"command_lifecycle","command_uuid":"` + id + `","state":"paused"}`))
	if err != nil || len(d.events) != 0 {
		t.Errorf("an unknown state: %+v, %v", d.events, err)
	}
}
