package view

import "strconv"

// Replies to the slash commands (/status and /help are in status.go,
// /sessions in sessions.go; the commands themselves, menu and /help lines,
// in botcommands.go). Values the user typed or the disk holds are
// escaped here; callers pass them raw.

// Usage lines for a command given an argument it does not take.
const (
	UsagePlanMode = "Usage: /planmode on | off | auto | show | clear"
	UsageModel    = "Usage: /model &lt;name&gt; | show | clear"
	UsageVerbose  = "Usage: /verbose on | off"
)

// CancelReply answers /cancel: running says there was a turn to stop.
func CancelReply(running bool) string {
	if running {
		return "Cancelling the running turn… The session stays; queued messages still run."
	}
	return "Nothing is running."
}

// CancelTooLate is what the reply to /cancel becomes when the turn ended
// on its own (answered or failed) before the cancel reached it.
const CancelTooLate = "The turn had ended before the cancel reached it."

// NewSessionReply answers /new; dropped is how many queued messages went.
func NewSessionReply(dropped int) string {
	msg := "Fresh start: your next message begins a new Claude session."
	if dropped > 0 {
		msg += " (" + strconv.Itoa(dropped) + " queued message(s) dropped.)"
	}
	return msg
}

// UnknownCommand answers a command the bot does not have.
func UnknownCommand(cmd string) string {
	return fit("Unknown command /" + esc(cmd) + ". Send /help for the list.")
}

// SettingNotSaved answers a command whose setting could not be stored.
func SettingNotSaved(err string) string {
	return fit("Could not save the setting: " + esc(err))
}

// settingLine is "<name>: <b>value</b> (source)."
func settingLine(name, value, source string) string {
	return name + ": <b>" + esc(value) + "</b> (" + esc(source) + ")."
}

// PlanModeShow answers /planmode show.
func PlanModeShow(mode, source string) string { return settingLine("Plan mode", mode, source) }

// PlanModeSet answers /planmode on|off|auto|clear: live says a Claude
// process is running, liveErr why switching it failed ("" when it worked).
func PlanModeSet(mode, source string, live bool, liveErr string) string {
	msg := PlanModeShow(mode, source)
	switch {
	case !live:
		return msg + " It applies when the session next starts."
	case liveErr != "":
		return fit(msg + " It applies when the session next starts (" + esc(liveErr) + ").")
	}
	return msg + " Applied to the running session."
}

// ModelShow answers /model show; model "" is the Claude Code default.
func ModelShow(model, source string) string {
	if model == "" {
		return "Model: the Claude Code default (config)."
	}
	return fit(settingLine("Model", model, source))
}

// ModelSet answers /model <name>|clear; model "" is the Claude Code
// default.
func ModelSet(model, source string) string {
	if model == "" {
		model = "the Claude Code default"
	}
	return fit(settingLine("Model", model, source) + " It applies from your next message; the conversation continues.")
}

// VerboseShow answers /verbose.
func VerboseShow(on bool, source string) string {
	return settingLine("Verbose progress", onOff(on), source)
}

func workDirLine(dir, source string) string {
	return "Working directory: <code>" + esc(dir) + "</code> (" + esc(source) + ")."
}

// WorkDirShow answers /cwd show.
func WorkDirShow(dir, source string) string { return fit(workDirLine(dir, source)) }

// WorkDirUnchanged answers /cwd naming the directory the chat is in.
func WorkDirUnchanged(dir, source string) string {
	return fit(workDirLine(dir, source) + " Unchanged.")
}

// WorkDirChanged answers /cwd that moved the chat: a new session starts.
func WorkDirChanged(dir, source string) string {
	return fit(workDirLine(dir, source) + " Your next message starts a fresh Claude session there (a session belongs to its directory).")
}

// WorkDirRefused answers /cwd with a directory that cannot be used; why
// is the error's text.
func WorkDirRefused(why string) string { return fit(esc(why)) }

// InvisibleDir is why /cwd or /branch refuses a directory whose name holds
// an invisible or direction-changing character (scope.InRoots): plain
// text, for WorkDirRefused and BranchRefused, the characters written out.
func InvisibleDir(path string) string {
	return Visible(path) + " holds an invisible or direction-changing character; the bot never works in such a directory."
}

// WorkDirBusy answers /cwd while the chat has a turn running or queued.
const WorkDirBusy = "A turn is running or queued in this chat: wait for it, or /cancel it, then change the directory."
