package control

import (
	"context"
	"errors"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

// Anyway answers presses on "Run anyway" under a spending limit's notice:
// the core runs that prompt past the limit once. The callback data carries
// the core's token, which names the stopped run and its conversation; a
// token spent, from before a restart or of another conversation is
// refused as stale.
type Anyway struct {
	Core *chat.Core
	Out  Out
}

// Press runs the stopped run the button names.
func (a Anyway) Press(ctx context.Context, p Press) {
	if ok, refused := a.Out.May(p.UserID, p.Place.ChatID); !ok {
		a.Out.Toast(ctx, p.CallbackID, refused)
		return
	}
	err := a.Core.RunAnyway(p.Key, p.Place, strings.TrimPrefix(p.Data, view.AnywayPrefix))
	if errors.Is(err, chat.ErrAnywayStale) {
		a.Out.Toast(ctx, p.CallbackID, view.ToastAnywayStale)
		return
	}
	a.Out.Toast(ctx, p.CallbackID, view.ToastRunAnyway)
}
