package view

import (
	"fmt"

	"github.com/untether/untether/transcript"
)

// /export: the conversation so far as a file.

const (
	// ExportUsage answers /export with another argument.
	ExportUsage = "Send <code>/export</code> for the conversation as a Markdown file, <code>/export json</code> for its raw transcript."
	// ExportEmpty: nothing recorded yet.
	ExportEmpty = "Nothing to export yet: no turn of this chat is recorded."
	// ExportFailed: the transcript could not be read or sent.
	ExportFailed = "The conversation could not be exported: see the bot's log."
)

// ExportCaption is the caption under the file.
func ExportCaption(turns int) string {
	return fmt.Sprintf("The conversation so far: %s (at most the last %d are kept).", plural(turns, "turn", "turns"), transcript.MaxTurns)
}
