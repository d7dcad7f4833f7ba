package enginetest

import (
	"context"
	"errors"

	"github.com/untether/untether/engine"
)

// Steering, as Claude Code does it (engine.Steerer): a line written while a
// turn runs waits until the turn's script takes it (TakeSteered: its next
// step); one no step took, or written with no turn running, runs as a turn
// of its own once the turn ended; an interrupt drops it. LikeCodex steers as Codex does instead.

var _ engine.Steerer = (*Session)(nil)

// steerHow is how a session steers (Options).
type steerHow struct {
	codex bool
	pause func(written bool)
}

// LikeCodex steers as Codex's turn/steer does (codex/steer.go): with no
// turn running, or once the running one answered, Steer fails; a line the
// turn did not take is dropped at its end (PromptCancelled before its
// TurnCompleted), never run on its own.
func LikeCodex() Option { return func(s *Session) { s.steerHow.codex = true } }

// WithSteerPause calls pause inside every Steer: with written false before
// the session looks at its turn (the instant the bot is still on its way
// to the agent), with true once the line is written and before Steer
// returns (the write in flight). A test blocks in it to order a Steer
// against the turn's end.
func WithSteerPause(pause func(written bool)) Option {
	return func(s *Session) { s.steerHow.pause = pause }
}

// errNoTurn is a Codex-like session's refusal of a steer with no turn
// running (Codex's turn/steer fails then).
var errNoTurn = errors.New("enginetest: no turn running to steer")

// Steer implements engine.Steerer.
func (s *Session) Steer(ctx context.Context, id, text string) error {
	how := s.steerHow
	if how.pause != nil {
		how.pause(false)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return engine.ErrClosed
	}
	if how.codex && (s.current == nil || s.answered) {
		s.mu.Unlock()
		return errNoTurn
	}
	l := sent{id: id, text: text, steered: true}
	if !how.codex { // Codex says nothing of a message it holds
		s.events <- engine.PromptState{ID: id, Stage: engine.PromptQueued}
	}
	if !how.codex && s.current == nil {
		// No turn runs (its lines were run already): Claude runs the line
		// as a turn of its own at once.
		s.prompts <- l
		s.sent++
	} else {
		s.steers = append(s.steers, l)
	}
	s.mu.Unlock()
	if how.pause != nil {
		how.pause(true)
	}
	return nil
}

// turnEndLocked marks the running turn answered (its TurnCompleted is
// being emitted, s.mu held); a Codex-like session drops the lines it did
// not take, reported before that TurnCompleted.
func (s *Session) turnEndLocked() {
	s.answered = true
	if !s.steerHow.codex {
		return
	}
	for _, l := range s.steers {
		s.events <- engine.PromptState{ID: l.id, Stage: engine.PromptCancelled}
	}
	s.steers = nil
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
