package runner

import "github.com/untether/untether/engine"

// requestKind says what a can_use_tool request for Claude Code's tool asks
// about, in the bot's words: what approvals decides on.
func requestKind(tool string) engine.RequestKind {
	switch tool {
	case "Bash":
		return engine.RequestCommand
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return engine.RequestFileChange
	case "AskUserQuestion":
		return engine.RequestQuestion
	case "ExitPlanMode":
		return engine.RequestPlan
	}
	return engine.RequestTool
}
