package view

// One-line notes about a turn that ended early or a setting that could
// not be kept. Paths are escaped here; callers pass them raw.

// CancelledText ends a turn the user cancelled while Claude worked on it.
const CancelledText = "⏹ Cancelled. The session is still here: send your next message."

// CancelledBeforeStartText ends a turn cancelled before Claude got the
// prompt (while it waited for a free Claude slot): the prompt never runs.
const CancelledBeforeStartText = "⏹ Cancelled before Claude started: this message was not run. The session is still here: send your next message."

// NotAllowedNote answers a stored prompt that was not run because its
// sender (or, chat true, the group) is no longer on the allowlist.
func NotAllowedNote(chat bool) string {
	if chat {
		return "⛔ Not run: this chat is no longer allowed to use this bot."
	}
	return "⛔ Not run: you are no longer allowed to use this bot."
}

// WorkDirFallback tells a chat that its stored working directory is no
// longer usable (outside today's project_roots, replaced by a link that
// leads elsewhere, or gone) and where its new session runs instead.
func WorkDirFallback(stored, why, fallback string) string {
	return "⚠ The working directory <code>" + esc(stored) + "</code> " + esc(why) +
		", so this chat is back in the default directory <code>" + esc(fallback) +
		"</code> with a fresh Claude session. /cwd sets another one."
}
