package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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

// startedWith is what a held CLI was started with that bounds what it may
// do without asking: whether the project's own settings run their programs
// (no --ignore-persisted-trust), --dangerously-skip-permissions, the tools
// --allowedTools lets it run unasked and the directories --add-dir lets
// it use. The permission mode is not here: the bot sets it on a running
// process too.
type startedWith struct {
	ProjectSettings bool     `json:"project_settings"`
	SkipPermissions bool     `json:"skip_permissions"`
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	AddDirs         []string `json:"add_dirs,omitempty"`
}

func startedFrom(o Options) *startedWith {
	return &startedWith{ProjectSettings: o.ProjectSettings, SkipPermissions: o.SkipPermissions,
		AllowedTools: slices.Clone(o.AllowedTools), AddDirs: slices.Clone(o.AddDirs)}
}

// lessSafe says how a process started with w may do more unasked than one
// o starts ("" when it may not). Without a record (nil: a bot before the
// record started it) nothing says how: it counts as less safe.
func (w *startedWith) lessSafe(o Options) string {
	if w == nil {
		return "started by a bot that did not record how (project settings may run)"
	}
	var why []string
	if w.ProjectSettings && !o.ProjectSettings {
		why = append(why, "the project's own settings run their programs")
	}
	if w.SkipPermissions && !o.SkipPermissions {
		why = append(why, "it skips permission checks")
	}
	if extra := notIn(w.AllowedTools, o.AllowedTools); len(extra) > 0 {
		why = append(why, "it may run "+strings.Join(extra, ",")+" unasked")
	}
	if extra := notIn(w.AddDirs, o.AddDirs); len(extra) > 0 {
		why = append(why, "it may use "+strings.Join(extra, ",")+" unasked")
	}
	return strings.Join(why, "; ")
}

// notIn is what of have is not in allowed.
func notIn(have, allowed []string) (out []string) {
	for _, v := range have {
		if !slices.Contains(allowed, v) {
			out = append(out, v)
		}
	}
	return out
}

// heldHandle is the handle the bot records: the holder's, and how its
// process was started (nil in a handle an older bot wrote). The holder's
// fields stay at the top level, so that either bot reads the other's.
type heldHandle struct {
	hold.Handle
	Started *startedWith `json:"started,omitempty"`
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
	return s.held.started.lessSafe(s.opts)
}
