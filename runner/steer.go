package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/untether/untether/engine"
)

// Steering (docs/protocol.md "Steer"): a user line written while a turn
// runs joins that turn at its next model request; the CLI says when it
// took it in command_lifecycle lines under the line's uuid. When the turn
// makes no further request, the CLI takes the line after the result, as a
// turn of its own.

var _ engine.Steerer = (*Session)(nil)

// userLine is a stream-json user message, under id when not "".
func userLine(id, text string) ([]byte, error) {
	msg := map[string]any{
		"type":               "user",
		"session_id":         "",
		"parent_tool_use_id": nil,
		"message":            map[string]any{"role": "user", "content": text},
	}
	if id != "" {
		msg["uuid"] = id
	}
	line, err := json.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("encode user message: %w", err)
	}
	return line, nil
}

// Steer implements engine.Steerer. The line counts as a turn only once the
// CLI takes it with no turn running (steeredState).
func (s *Session) Steer(ctx context.Context, id, text string) error {
	if s.opts.Mode != Interactive {
		return ErrNoControl
	}
	line, err := userLine(id, text)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.steered[id] = true
	s.mu.Unlock()
	if err := s.write(ctx, line); err != nil {
		s.mu.Lock()
		delete(s.steered, id)
		s.mu.Unlock()
		return fmt.Errorf("steer a user message: %w", err)
	}
	return nil
}

// steeredState follows a steered line (s.mu held): taken after its turn's
// result, it is a turn of its own.
func (s *Session) steeredState(e engine.PromptState) {
	if !s.steered[e.ID] {
		return
	}
	switch e.Stage {
	case engine.PromptStarted:
		if s.turns == 0 {
			s.turns++
		}
		delete(s.steered, e.ID)
	case engine.PromptCancelled, engine.PromptCompleted:
		delete(s.steered, e.ID)
	}
}

// lifecycleStages maps command_lifecycle's states.
var lifecycleStages = map[string]engine.PromptStage{
	"queued": engine.PromptQueued, "started": engine.PromptStarted,
	"completed": engine.PromptCompleted, "cancelled": engine.PromptCancelled,
}

// lifecycle decodes a command_lifecycle line; an unknown state yields
// nothing.
func lifecycle(l *line) []engine.Event {
	stage, ok := lifecycleStages[l.State]
	if !ok || l.CommandUUID == "" {
		return nil
	}
	return []engine.Event{engine.PromptState{ID: l.CommandUUID, Stage: stage}}
}
