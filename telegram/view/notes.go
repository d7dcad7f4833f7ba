package view

import (
	"strconv"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/human"
)

// One-line notes: about a message (queued, edited, not passed on), a turn
// that waits or ended early, or a setting that could not be kept. Paths are
// escaped here; callers pass them raw.

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

// DirProblem says why a chat's stored working directory cannot be used
// (the core's value).
type DirProblem = chat.DirProblem

// Why a directory cannot be used.
const (
	DirGone         = chat.DirGone
	DirNotDir       = chat.DirNotDir
	DirLeadsOutside = chat.DirLeadsOutside
	DirOutsideRoots = chat.DirOutsideRoots
	DirInvisible    = chat.DirInvisible
)

// WorkDirFallback tells a chat that its stored working directory is no
// longer usable and where its new session runs instead; resolved is where
// the stored path leads now (for DirLeadsOutside).
func WorkDirFallback(stored string, why DirProblem, resolved, fallback string) string {
	var says string
	switch why {
	case DirGone:
		says = "no longer exists"
	case DirNotDir:
		says = "is no longer a directory"
	case DirLeadsOutside:
		says = "now leads to " + Visible(resolved) + ", outside [claude] project_roots"
	case DirInvisible:
		says = "holds an invisible or direction-changing character"
	default:
		says = "is no longer inside [claude] project_roots"
	}
	return fit("⚠ The working directory <code>" + esc(Visible(stored)) + "</code> " + esc(says) +
		", so this chat is back in the default directory <code>" + esc(fallback) +
		"</code> with a fresh Claude session. /cwd sets another one.")
}

// QueuedNote tells the user their message waits behind a running turn;
// ahead counts the running turn too.
func QueuedNote(ahead int) string {
	return "Queued: it runs after the current turn (" + strconv.Itoa(ahead) + " ahead). /cancel stops the current one."
}

// WaitingForSlot tells the user their turn waits for one of busy Claude
// processes (max_live_sessions) to end.
func WaitingForSlot(busy int) string {
	return "Waiting for a free Claude slot: " + strconv.Itoa(busy) + " sessions are busy (max_live_sessions)."
}

// WaitingToStart tells the user their Claude waits its turn to start:
// ahead are starting or waiting before it.
func WaitingToStart(ahead int) string {
	return "Starting Claude: " + strconv.Itoa(ahead) + " sessions are starting before this one."
}

// ResumeFailedNote: the stored session could not be resumed.
const ResumeFailedNote = "Couldn't resume the previous Claude session; starting a fresh one."

// Answers to a message edited after it was sent.
const (
	EditApplied = "✏️ Updated before it ran: Claude gets the edited text."
	EditRunning = "This message is running already, so the edit does not reach Claude. /cancel stops it; then send the new text."
	EditTooLate = "This message has run already; editing it does not run it again. Send the new text as a new message."
)

// Content the bot cannot pass on to Claude, as the router names it.
const (
	ContentVideo    = "video"
	ContentSticker  = "sticker"
	ContentLocation = "location"
	ContentContact  = "contact"
	ContentPoll     = "poll"
)

var contentNouns = map[string]string{
	ContentVideo:    "videos",
	ContentSticker:  "stickers",
	ContentLocation: "locations",
	ContentContact:  "contacts",
	ContentPoll:     "polls",
}

// Unsupported answers a message with nothing the bot can pass on: kind
// is one of the Content constants.
func Unsupported(kind string) string {
	noun, ok := contentNouns[kind]
	if !ok {
		noun = "this kind of message"
	}
	return "I can pass text, photos and files to Claude, but not " + noun + "."
}

// Unreadable answers a message the bot received but could not decode:
// Telegram sent something this version does not understand (a kind of
// content added by a newer Bot API, say), so nothing was passed to Claude.
const Unreadable = "I couldn't read that message (Telegram sent it in a form this version of untether does not understand), so Claude did not get it. Send it as plain text or a file instead."

// FileTooBig answers a file over the Bot API's download limit (limit in
// bytes).
func FileTooBig(size, limit int64) string {
	return "That file is " + human.Bytes(size) + ", and Telegram lets bots download files of up to " +
		strconv.FormatInt(limit>>20, 10) + " MB: send a smaller one, or put it in the working folder another way."
}
