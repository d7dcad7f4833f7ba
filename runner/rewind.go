package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/untether/untether/engine"
)

// checkpointEnv makes the CLI keep a copy of every file Write, Edit and
// NotebookEdit change, per user message: what rewind_files restores. It
// must be set on every start and resume (measured, docs/protocol.md).
const checkpointEnv = "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=1"

// processEnv is ChildEnv with checkpoints on: every start and resume (and
// a holder's) keeps them, or rewind_files has nothing to restore. The
// runtime's tuning (runtimeEnv) goes first, so the owner's values win.
func (o Options) processEnv() []string {
	return append(append(slices.Clone(runtimeEnv), o.ChildEnv()...), checkpointEnv)
}

var (
	_ engine.PromptIDs = (*Session)(nil)
	_ engine.Rewinder  = (*Session)(nil)
)

// rewindAnswer is the CLI's answer to rewind_files.
type rewindAnswer struct {
	CanRewind    bool     `json:"canRewind"`
	Error        string   `json:"error"`
	FilesChanged []string `json:"filesChanged"`
	Insertions   int      `json:"insertions"`
	Deletions    int      `json:"deletions"`
}

// Rewind implements engine.Rewinder with the rewind_files control request:
// the files changed since the user message id (SendAs) come back.
func (s *Session) Rewind(ctx context.Context, promptID string, dryRun bool) (engine.Rewind, error) {
	req := map[string]any{"subtype": "rewind_files", "user_message_id": promptID}
	if dryRun {
		req["dry_run"] = true
	}
	raw, err := s.control(ctx, req)
	if err != nil {
		return engine.Rewind{}, fmt.Errorf("rewind files to %s: %w", promptID, err)
	}
	var a rewindAnswer
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return engine.Rewind{}, fmt.Errorf("decode rewind_files answer: %w", err)
		}
	}
	if a.Error != "" || (dryRun && !a.CanRewind) {
		return engine.Rewind{}, fmt.Errorf("rewind files to %s: %w: %s", promptID, engine.ErrNothingToRewind, a.Error)
	}
	return engine.Rewind{Files: a.FilesChanged, Insertions: a.Insertions, Deletions: a.Deletions}, nil
}
