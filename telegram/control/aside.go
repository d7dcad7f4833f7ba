package control

import (
	"context"
	"errors"
	"log/slog"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// Aside answers /btw while a turn runs (the bot's router makes it an
// ordinary prompt when none does).
type Aside struct {
	Core *chat.Core
	Out  Out
	Log  *slog.Logger
}

// Ask answers question, replying to the command's message msgID.
func (a Aside) Ask(ctx context.Context, key string, p chat.Place, msgID int, question string) {
	if question == "" {
		a.Out.Send(ctx, p, msgID, view.AsideUsage, nil)
		return
	}
	answer, err := a.Core.Aside(ctx, key, question)
	switch {
	case errors.Is(err, chat.ErrNoAside):
		a.Out.Send(ctx, p, msgID, view.NoAside, nil)
	case errors.Is(err, chat.ErrNotRunning):
		a.Out.Send(ctx, p, msgID, view.AsideIdle, nil)
	case err != nil:
		a.Log.Warn("the question aside got no answer", "chat_id", p.ChatID, "session_key", key, "err", err)
		a.Out.Send(ctx, p, msgID, view.AsideFailed, nil)
	default:
		for _, part := range view.FinalParts(answer, view.AsideFooter, render.Message) {
			a.Out.Send(ctx, p, msgID, part, nil)
			msgID = 0
		}
	}
}
