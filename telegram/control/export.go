package control

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/transcript"
)

// Export answers /export: the conversation's transcript as a Markdown file,
// or with "json" as the raw transcript. Both go through Out.Document, which
// redacts the file like every message.
type Export struct {
	Log *transcript.Log
	Out Out
	Lg  *slog.Logger
}

// Send sends conversation key's transcript, replying to msgID.
func (e Export) Send(ctx context.Context, key string, p chat.Place, msgID int, args string) {
	asJSON := false
	switch strings.ToLower(strings.TrimSpace(args)) {
	case "", "md", "markdown":
	case "json":
		asJSON = true
	default:
		e.Out.Send(ctx, p, msgID, view.ExportUsage, nil)
		return
	}
	turns, err := e.Log.Turns(ctx, key)
	if err != nil {
		e.Lg.Warn("could not read the transcript", "chat_id", p.ChatID, "session_key", key, "err", err)
		e.Out.Send(ctx, p, msgID, view.ExportFailed, nil)
		return
	}
	if len(turns) == 0 {
		e.Out.Send(ctx, p, msgID, view.ExportEmpty, nil)
		return
	}
	name, data := view.ExportName(time.Now(), "md"), []byte(view.ExportMarkdown(turns))
	if asJSON {
		name = view.ExportName(time.Now(), "json")
		if data, err = json.MarshalIndent(turns, "", "  "); err != nil {
			e.Lg.Warn("could not encode the transcript", "chat_id", p.ChatID, "session_key", key, "err", err)
			e.Out.Send(ctx, p, msgID, view.ExportFailed, nil)
			return
		}
	}
	if err := e.Out.Document(ctx, p, msgID, name, data, view.ExportCaption(len(turns))); err != nil {
		e.Lg.Warn("could not send the export", "chat_id", p.ChatID, "session_key", key, "err", err)
		e.Out.Send(ctx, p, msgID, view.ExportFailed, nil)
	}
}
