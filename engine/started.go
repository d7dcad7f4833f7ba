package engine

import (
	"slices"
	"strings"
)

// Started is how a held process was started in what bounds what it does
// unasked, for the settings an agent fixes at its start (a held process
// keeps them for its life, across bot restarts; LessSafe). Each engine
// records it in its Held handle and fills what its agent has: Claude
// Code all of it (runner/heldtrust.go), Codex ProjectConfig only
// (codex/held.go: its approval policy and sandbox go with every turn).
// The JSON names are those of the handles written since the record came.
type Started struct {
	// ProjectConfig: the project's own settings run their programs
	// (Claude Code without --ignore-persisted-trust, Codex's
	// .codex/config.toml loaded).
	ProjectConfig   bool     `json:"project_settings"`
	SkipPermissions bool     `json:"skip_permissions"`
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	AddDirs         []string `json:"add_dirs,omitempty"`
}

// LessSafeThan says how a process started with s may do more unasked
// than one started with now ("" when it may not). Without a record (nil:
// a bot before the record started it) nothing says how: it counts as less
// safe.
func (s *Started) LessSafeThan(now Started) string {
	if s == nil {
		return "started by a bot that did not record how (project settings may run)"
	}
	var why []string
	if s.ProjectConfig && !now.ProjectConfig {
		why = append(why, "the project's own settings run their programs")
	}
	if s.SkipPermissions && !now.SkipPermissions {
		why = append(why, "it skips permission checks")
	}
	if extra := notIn(s.AllowedTools, now.AllowedTools); len(extra) > 0 {
		why = append(why, "it may run "+strings.Join(extra, ",")+" unasked")
	}
	if extra := notIn(s.AddDirs, now.AddDirs); len(extra) > 0 {
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
