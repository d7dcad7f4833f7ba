// Package contain keeps a panic in handling one update from crashing the bot.
package contain

import (
	"fmt"
	"log/slog"
	"runtime/debug"
)

// Update runs the handling of one update and turns a panic in it (a bug of
// ours that some message's content provokes) into a log line: the update
// is skipped like one that cannot be decoded. Left to crash the bot, it
// would crash it again after every restart, for Telegram sends an update
// until the offset moves past it, and nobody could use the bot, /cancel
// included. Only the poll loop's own work is covered: lanes and actors run
// on goroutines of their own. The panic's value goes through redact; the
// stack holds no content, only code addresses.
func Update(log *slog.Logger, redact func(string) string, updateID int64, handle func()) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("handling an update failed: it is skipped", "update_id", updateID,
				"panic", redact(fmt.Sprint(r)), "stack", string(debug.Stack()))
		}
	}()
	handle()
}
