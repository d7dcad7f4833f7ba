package runner

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// A held Claude keeps the flags it was started with for its life, across
// bot restarts; the config may have changed meanwhile (an owner who set
// [claude] project_settings back to false because of a suspicious
// repository, an upgrade that brought --ignore-persisted-trust). So the
// handle the bot records (prefs.HeldSession.Handle) says how its process
// was started in what bounds what it does unasked, and a bot that
// re-attaches compares that with how it would start one now (LessSafe):
// the core lets such a process finish the turn it runs, then ends it, and
// the next turn resumes the conversation in a process started as the
// config says (docs/durability.md, docs/security.md).

// startedFrom is what a CLI o starts is started with that bounds what it
// may do without asking (engine.Started): whether the project's own
// settings run their programs (no --ignore-persisted-trust),
// --dangerously-skip-permissions, the tools --allowedTools lets it run
// unasked and the directories --add-dir lets it use. The permission mode
// is not there: the bot sets it on a running process too.
func startedFrom(o Options) *engine.Started {
	return &engine.Started{ProjectConfig: o.ProjectSettings, SkipPermissions: o.SkipPermissions,
		AllowedTools: slices.Clone(o.AllowedTools), AddDirs: slices.Clone(o.AddDirs)}
}

// heldHandle is the handle the bot records: the holder's, and how its
// process was started (nil in a handle an older bot wrote). The holder's
// fields stay at the top level, so that either bot reads the other's.
type heldHandle struct {
	hold.Handle
	Started *engine.Started `json:"started,omitempty"`
}

func parseHandle(handle string) (heldHandle, error) {
	var h heldHandle
	if err := json.Unmarshal([]byte(handle), &h); err != nil {
		return heldHandle{}, fmt.Errorf("unreadable handle: %w", err)
	}
	return h, nil
}

// LessSafe says how the held process may do more unasked than one this
// Session's options start ("" when it may not, or it is not held): it was
// started before the config asked for more safety, by this bot's
// predecessor.
func (s *Session) LessSafe() string {
	if s.held == nil {
		return ""
	}
	return s.held.started.LessSafeThan(*startedFrom(s.opts))
}
