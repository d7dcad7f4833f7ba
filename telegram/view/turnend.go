package view

import "strconv"

// How a turn that gives no answer ends: the errors (rendered by ErrorText)
// and the notes for a turn the bot itself cut short. Details are the
// caller's, already redacted; ErrorText escapes them.

// DownloadFailed: a file the user sent could not be fetched from Telegram.
func DownloadFailed(detail string) TurnError {
	return TurnError{What: "Could not download your file", Detail: detail,
		Hint: "Send it again; Telegram keeps files downloadable for an hour or more."}
}

// TurnFailed: Claude Code ended the turn with an error.
func TurnFailed(detail string) TurnError {
	return TurnError{What: "The turn failed", Detail: detail, Hint: "Send another message to continue; the session is kept."}
}

// ClaudeNotFound: the claude binary could not be started because it is not
// there.
func ClaudeNotFound(detail string) TurnError {
	return TurnError{What: "Claude Code was not found", Detail: detail,
		Hint: "Install Claude Code (npm install -g @anthropic-ai/claude-code) or set [claude] binary in the config."}
}

// StartFailed: Claude Code could not be started for another reason.
func StartFailed(detail string) TurnError {
	return TurnError{What: "Could not start Claude", Detail: detail, Hint: "Check the bot's log; the next message will try again."}
}

// ClaudeExited: the process ended before the turn did. err, when not
// empty, says why better than the exit code and signal.
func ClaudeExited(exitCode int, signal, err, stderrTail string) TurnError {
	detail := "exit code " + strconv.Itoa(exitCode)
	if signal != "" {
		detail += ", signal " + signal
	}
	if err != "" {
		detail = err
	}
	return TurnError{What: "Claude exited without finishing the turn", Detail: detail, StderrTail: stderrTail,
		Hint: "Your next message starts Claude again (the conversation is resumed)."}
}

// StoppingText ends a turn the bot interrupted because it is shutting down.
const StoppingText = "⏹ The bot is stopping, so this turn was interrupted. Send your message again once it is back; the session is kept."

// RestartedText replaces a progress message left by a run that ended
// without closing it (a crash or a kill).
const RestartedText = "⏹ Interrupted by restart. Send your message again to continue; the session is kept."

// HeldGoneText replaces the progress message of a turn whose Claude was
// held through the restart but was gone when the bot came back (it
// crashed, or the machine rebooted): only that died, and the
// conversation is kept.
const HeldGoneText = "⏹ Interrupted: Claude's process ended while the bot was down (it crashed, or the machine restarted). " +
	"Send your message again to continue; the session is kept and resumes."

// HeldUnreachableText replaces the progress message of a turn whose
// Claude was held on machine, which did not answer when the bot started:
// Claude may still be working there, and the bot does not follow it.
func HeldUnreachableText(machine string) string {
	return "⏸ " + machine + " could not be reached when the bot started, so Claude may still be working on " +
		"this turn there, unseen. Your next message here tries " + machine + " again first: if it answers, " +
		"this turn's answer comes then, and your message runs after it. /new starts afresh instead (the old " +
		"process then stops by itself after [claude] durable_wait)."
}

// HeldNotAllowedText replaces the progress message of a turn whose Claude
// was held through a restart after which its chat (chat) or the user it
// ran for is no longer allowed: Claude was told to stop.
func HeldNotAllowedText(chat bool) string {
	who := "you are"
	if chat {
		who = "this chat is"
	}
	return "⛔ Stopped: " + who + " no longer allowed to use this bot, so Claude was told to stop this turn."
}

// HeldDirRefusedText replaces the progress message of a turn whose Claude
// was held through a restart after which its directory fails the check a
// session start makes (outside [claude] project_roots, gone): Claude was
// told to stop; a notice says where the chat works now.
const HeldDirRefusedText = "⏹ Stopped: Claude was working in a directory this bot may no longer work in, so it was told to stop " +
	"this turn. Send your message again to run it where this chat works now (/cwd shows it)."

// HeldOtherVersionText replaces the progress message of a turn whose
// Claude still runs, held by another version of untether (an upgrade that
// changed the holder's protocol, or a downgrade) that this bot cannot
// take over.
const HeldOtherVersionText = "⏹ This turn cannot go on here: Claude is still working on it, held by another version of untether " +
	"that this one cannot take over. To get its answer, run that version again until the turn is done; " +
	"or send /new to start afresh (the old process stops by itself after [claude] durable_wait)."
