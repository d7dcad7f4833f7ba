package codex

import "github.com/untether/untether/engine"

// policy is a bot permission mode in Codex's words: the approval policy
// and sandbox of thread/start and thread/resume (the sandbox as a mode),
// and of turn/start (the sandbox as a policy object).
type policy struct {
	Approval string
	Sandbox  string
}

// policies map the bot's modes to Codex's (docs/protocol-codex.md has
// the measurements). "untrusted" asks before every command Codex does not
// know to be read-only and before every file change; "on-request" lets
// the model decide and runs commands in the sandbox without asking;
// "never" asks nothing.
var policies = map[string]policy{
	engine.ModeDefault: {"untrusted", "workspace-write"},
	// Codex has no "edits go, commands are asked": file changes are
	// asked like in default (the safe side).
	engine.ModeAcceptEdits: {"untrusted", "workspace-write"},
	// Codex has no plan mode: nothing may change, every command is asked
	// and runs in a read-only sandbox.
	engine.ModePlan:   {"untrusted", "read-only"},
	engine.ModeBypass: {"never", "danger-full-access"},
	// Nothing is asked and nothing outside reads runs: the read-only
	// sandbox refuses writes.
	engine.ModeDontAsk: {"never", "read-only"},
	// Codex's own judgement: the model asks for escalation when it needs it.
	engine.ModeAuto: {"on-request", "workspace-write"},
}

// policyFor is mode's policy; an unknown or empty mode is the default's.
func policyFor(mode string) policy {
	if p, ok := policies[mode]; ok {
		return p
	}
	return policies[engine.DefaultPermissionMode]
}

// sandboxPolicy is Sandbox as turn/start's sandboxPolicy object.
func (p policy) sandboxPolicy() map[string]any {
	switch p.Sandbox {
	case "read-only":
		return map[string]any{"type": "readOnly"}
	case "danger-full-access":
		return map[string]any{"type": "dangerFullAccess"}
	default:
		return map[string]any{"type": "workspaceWrite"}
	}
}
