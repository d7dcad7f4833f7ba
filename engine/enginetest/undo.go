package enginetest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/untether/untether/engine"
)

// Checkpoints stand for Claude Code's file checkpoints: what each prompt's
// turn wrote (Turn.Write), kept across sessions as the CLI keeps them
// across a --resume. Share one between the sessions of a test.
type Checkpoints struct {
	mu      sync.Mutex
	changes []change
}

// change is one file a turn wrote: its text before, or that it was new.
type change struct {
	prompt, path string
	before       []byte
	created      bool
}

// Undoable is a Session with the turn controls Claude Code has: prompts
// under the bot's ids, undoing file changes (engine.PromptIDs,
// engine.Rewinder, with checkpointing on) and questions aside
// (engine.SideAsker).
type Undoable struct {
	*Session
	cp *Checkpoints
}

// WithUndo makes s an Undoable keeping its checkpoints in cp.
func WithUndo(s *Session, cp *Checkpoints) Undoable { return Undoable{s, cp} }

var (
	_ engine.PromptIDs = Undoable{}
	_ engine.Rewinder  = Undoable{}
	_ engine.SideAsker = Undoable{}
)

// SendAs implements engine.PromptIDs.
func (u Undoable) SendAs(ctx context.Context, id, text string) error { return u.send(id, text) }

// Write writes a real file as the turn's Write tool would, checkpointed
// under the turn's prompt id.
func (t *Turn) Write(cp *Checkpoints, path, text string) error {
	before, err := os.ReadFile(path)
	created := errors.Is(err, os.ErrNotExist)
	if err != nil && !created {
		return fmt.Errorf("enginetest: read %s: %w", path, err)
	}
	cp.mu.Lock()
	cp.changes = append(cp.changes, change{prompt: t.ID, path: path, before: before, created: created})
	cp.mu.Unlock()
	return os.WriteFile(path, []byte(text), 0o600)
}

// Rewind implements engine.Rewinder: every file written since the prompt
// comes back (a new one goes), later prompts' files included.
func (u Undoable) Rewind(ctx context.Context, promptID string, dryRun bool) (engine.Rewind, error) {
	cp := u.cp
	cp.mu.Lock()
	defer cp.mu.Unlock()
	from := slices.IndexFunc(cp.changes, func(c change) bool { return c.prompt == promptID })
	if from < 0 {
		return engine.Rewind{}, engine.ErrNothingToRewind
	}
	var r engine.Rewind
	for _, c := range cp.changes[from:] {
		if !slices.Contains(r.Files, c.path) {
			r.Files = append(r.Files, c.path)
		}
	}
	if dryRun {
		return r, nil
	}
	for i := len(cp.changes) - 1; i >= from; i-- {
		c := cp.changes[i]
		var err error
		if c.created {
			err = os.Remove(c.path)
		} else {
			err = os.WriteFile(c.path, c.before, 0o600)
		}
		if err != nil {
			return engine.Rewind{}, fmt.Errorf("enginetest: restore %s: %w", c.path, err)
		}
	}
	cp.changes = cp.changes[:from]
	return r, nil
}

// Aside implements engine.SideAsker for an Undoable: it answers "aside: "
// and the question, and the running turn never hears of it.
func (u Undoable) Aside(ctx context.Context, question string) (string, error) {
	return "aside: " + question, nil
}
