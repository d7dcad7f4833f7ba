package telegram

import (
	"log/slog"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/transcript"
)

// recordTranscripts records every conversation's turns into l (what
// /export and the web view read) while the bot runs; the func it returns
// stops the watch and writes what is still queued, once the core has
// stopped.
func recordTranscripts(core *chat.Core, l *transcript.Log, log *slog.Logger) (stop func()) {
	rec := l.Record(log)
	unwatch := core.Watch("", rec)
	return func() {
		unwatch()
		rec.Close()
	}
}
