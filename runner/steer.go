package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/untether/untether/engine"
)

// Steering (docs/protocol.md "Steer"): a user line written while a turn
// runs joins that turn at its next model request; the CLI says when it
// took it in command_lifecycle lines under the line's uuid. When the turn
// makes no further request, the CLI takes the line after the result, as a
// turn of its own.

var _ engine.Steerer = (*Session)(nil)

// steerPriority marks a steered line: "next" is what the CLI does with a
// line that has no priority (docs/protocol.md "Steer"), so the mark changes
// nothing for it; it tells a replay of the journal a steered line from a
// prompt (both carry a uuid).
const steerPriority = "next"

// userLine is a stream-json user message, under id when not "", with
// priority when not "".
func userLine(id, text, priority string) ([]byte, error) {
	msg := map[string]any{
		"type":               "user",
		"session_id":         "",
		"parent_tool_use_id": nil,
		"message":            map[string]any{"role": "user", "content": text},
	}
	if id != "" {
		msg["uuid"] = id
	}
	if priority != "" {
		msg["priority"] = priority
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
	line, err := userLine(id, text, steerPriority)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.steered[id] = true
	s.mu.Unlock()
	err = s.write(ctx, line)
	if errors.Is(err, errWritePending) {
		// The CLI gets it once written (engine.Steerer: an error says it
		// does not); its lifecycle lines settle it.
		s.logger().Warn("a steered message waits for the writer: taken as sent", "err", err)
		return nil
	}
	if err != nil {
		s.mu.Lock()
		delete(s.steered, id)
		s.mu.Unlock()
		return fmt.Errorf("steer a user message: %w", err)
	}
	return nil
}

// steeredState follows a steered line (s.mu held): taken after its turn's
// result, it is a turn of its own. So is any line the CLI takes with no
// turn running: a prompt counts itself when sent, and a re-attach's replay
// may begin after the steered line it runs (at its turn, chat's
// HeldTurn.Steered). A held session's replay of that turn starts there.
func (s *Session) steeredState(e engine.PromptState) {
	switch e.Stage {
	case engine.PromptStarted:
		if s.turns == 0 {
			s.turns++
			if s.held != nil {
				s.sentAt.Store(s.held.at)
			}
		}
		delete(s.steered, e.ID)
	case engine.PromptCancelled, engine.PromptCompleted:
		delete(s.steered, e.ID)
	}
}

// steeredNext notes, at a turn's result (s.mu held), that the CLI still
// holds steered lines: it runs them next, as a turn of its own, so a
// re-attach during that turn replays from the record after the result
// (the line itself was journaled before it).
func (s *Session) steeredNext() {
	if s.held != nil && len(s.steered) > 0 {
		s.sentAt.Store(s.held.at + 1)
	}
}

// replayedSteer restores a steered line found in the journal (a user line
// with steerPriority): not a prompt, followed by its uuid as if this
// Session had written it. It gives that uuid, "" when the line is none.
func (s *Session) replayedSteer(line []byte) string {
	var in struct {
		UUID     string `json:"uuid"`
		Priority string `json:"priority"`
	}
	if json.Unmarshal(line, &in) != nil || in.Priority != steerPriority || in.UUID == "" {
		return ""
	}
	s.mu.Lock()
	s.steered[in.UUID] = true
	s.mu.Unlock()
	return in.UUID
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
