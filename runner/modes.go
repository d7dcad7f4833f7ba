package runner

import "github.com/untether/untether/engine"

// claudeModes maps the bot's permission modes (engine.Mode…) to Claude
// Code's --permission-mode values. CLI 2.1.330 spells them as the bot
// does; the table is where a rename on either side is made.
var claudeModes = map[string]string{
	engine.ModeDefault:     "default",
	engine.ModeAcceptEdits: "acceptEdits",
	engine.ModePlan:        "plan",
	engine.ModeBypass:      "bypassPermissions",
	engine.ModeDontAsk:     "dontAsk",
	engine.ModeAuto:        "auto",
}

// toClaudeMode is the CLI's value for the bot's mode; a mode the table
// does not know is passed on as it is (the CLI refuses what it does not
// know either).
func toClaudeMode(mode string) string {
	if m, ok := claudeModes[mode]; ok {
		return m
	}
	return mode
}

// fromClaudeMode is the bot's mode for the CLI's value (init's
// permissionMode, status lines); one the table does not know is passed on.
func fromClaudeMode(mode string) string {
	for ours, theirs := range claudeModes {
		if theirs == mode {
			return ours
		}
	}
	return mode
}
