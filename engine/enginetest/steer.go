package enginetest

import (
	"context"

	"github.com/untether/untether/engine"
)

// Steering, as Claude Code does it (engine.Steerer): a line written while a
// turn runs waits until the turn's script takes it (TakeSteered: its next
// step); one no step took runs as a turn of its own once the turn ended;
// an interrupt drops it.

var _ engine.Steerer = (*Session)(nil)

// Steer implements engine.Steerer.
func (s *Session) Steer(ctx context.Context, id, text string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return engine.ErrClosed
	}
	s.steers = append(s.steers, sent{id: id, text: text, steered: true})
	s.mu.Unlock()
	s.emit(engine.PromptState{ID: id, Stage: engine.PromptQueued})
	return nil
}

// Steered lists the ids of every line steered and not yet taken or dropped.
func (s *Session) Steered() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, l := range s.steers {
		ids = append(ids, l.id)
	}
	return ids
}

// TakeSteered is the turn's next step taking the lines steered into it:
// their texts, each reported started.
func (t *Turn) TakeSteered() []string {
	s := t.s
	s.mu.Lock()
	lines := s.steers
	s.steers = nil
	s.mu.Unlock()
	var texts []string
	for _, l := range lines {
		s.emit(engine.PromptState{ID: l.id, Stage: engine.PromptStarted})
		texts = append(texts, l.text)
	}
	return texts
}

// runSteered queues the lines no turn took, each a turn of its own.
func (s *Session) runSteered() {
	s.mu.Lock()
	lines := s.steers
	s.steers = nil
	s.mu.Unlock()
	for _, l := range lines {
		s.mu.Lock()
		s.prompts <- l
		s.sent++
		s.mu.Unlock()
	}
}

// dropSteered drops the lines not taken (an interrupt's cancel_queued),
// reporting each cancelled before the turn's result.
func (s *Session) dropSteered() {
	s.mu.Lock()
	lines := s.steers
	s.steers = nil
	s.mu.Unlock()
	for _, l := range lines {
		s.emit(engine.PromptState{ID: l.id, Stage: engine.PromptCancelled})
	}
}
