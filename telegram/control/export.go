package control

import (
	"context"
	"log/slog"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/transcript"
)

// Export answers /export: the conversation's transcript as a Markdown file,
// or with "json" as the raw transcript (transcript.Log.Export, the web
// view's download too). Both go through Out.Document, which redacts the
// file like every message.
type Export struct {
	Log *transcript.Log
	Out Out
	Lg  *slog.Logger
}

// Send sends conversation key's transcript, replying to msgID.
func (e Export) Send(ctx context.Context, key string, p chat.Place, msgID int, args string) {
	f, ok := transcript.ParseFormat(args)
	if !ok {
		e.Out.Send(ctx, p, msgID, view.ExportUsage, nil)
		return
	}
	file, err := e.Log.Export(ctx, key, f, time.Now())
	if err != nil {
		e.Lg.Warn("could not export the transcript", "chat_id", p.ChatID, "session_key", key, "err", err)
		e.Out.Send(ctx, p, msgID, view.ExportFailed, nil)
		return
	}
	if file.Turns == 0 {
		e.Out.Send(ctx, p, msgID, view.ExportEmpty, nil)
		return
	}
	if err := e.Out.Document(ctx, p, msgID, file.Name, file.Data, view.ExportCaption(file.Turns)); err != nil {
		e.Lg.Warn("could not send the export", "chat_id", p.ChatID, "session_key", key, "err", err)
		e.Out.Send(ctx, p, msgID, view.ExportFailed, nil)
	}
}
