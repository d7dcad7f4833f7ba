package view

import (
	"strings"
)

// Undo: the button under a turn's change footer, its confirm, its outcome.

// Prefixes of the undo buttons' callback data, each followed by the
// turn's prompt id (a UUID: 38 bytes in all, under Telegram's 64).
const (
	UndoPrefix        = "u:"
	UndoConfirmPrefix = "U:"
)

// NoUndoPart is the footer's word on a turn whose changes came only from
// shell commands, which the agent does not track.
const NoUndoPart = "Bash changes cannot be undone"

// UndoKeyboard is the "↩ Undo" button of a turn whose file changes can be
// undone; nil without an id.
func UndoKeyboard(id string) Keyboard {
	if id == "" {
		return nil
	}
	return Keyboard{{{Text: "↩ Undo", Data: UndoPrefix + id}}}
}

// If is k when cond holds, else nil (a keyboard under the last part only).
func (k Keyboard) If(cond bool) Keyboard {
	if cond {
		return k
	}
	return nil
}

// maxUndoFiles bounds the files an undo message lists.
const maxUndoFiles = 12

// undoFiles lists files, one a line, in code.
func undoFiles(files []string) string {
	var b strings.Builder
	for i, f := range files {
		if i == maxUndoFiles {
			b.WriteString("\n… and " + plural(len(files)-i, "more file", "more files"))
			break
		}
		b.WriteString("\n• <code>" + esc(clip(f, 200)) + "</code>")
	}
	return b.String()
}

// UndoConfirm asks before an undo that takes later turns' changes too
// (or whose turn the bot no longer knows, after a restart).
func UndoConfirm(id string, files []string) (string, Keyboard) {
	text := "↩ <b>Undo from this turn on?</b> Later turns changed files too, and their changes go as well. " +
		"These files come back as they were before the turn (files it created are removed):" + undoFiles(files)
	return text, Keyboard{{{Text: "↩ Undo all of it", Data: UndoConfirmPrefix + id, Style: StyleDanger}}}
}

// UndoDone says which files came back.
func UndoDone(files []string) string {
	return "↩ <b>Undone.</b> " + plural(len(files), "file is", "files are") + " back as before the turn " +
		"(your own edits from before it stay):" + undoFiles(files)
}

// Toasts of the undo buttons.
const (
	ToastUndoBusy    = "A turn is running: undo when it is over"
	ToastUndoNone    = "Nothing left to undo: already undone, or the session has changed"
	ToastNoUndo      = "This engine cannot undo file changes"
	ToastUndoFailed  = "The undo failed: see the bot's log"
	ToastUndone      = "Undone"
	ToastUndoConfirm = "Later turns changed files too: confirm below"
)
