// Package control is the Telegram side of controlling a conversation's
// turns beyond approvals: the Undo button under an answer (and later the
// buttons and commands that steer, stop or bypass a turn). It turns a press
// into a call on the core and says the outcome in view's words; the bot's
// root package gives it a way out (Out) and who may act.
package control

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/view"
)

// Out is how control talks to Telegram: the bot's own sender, which
// redacts and paces.
type Out interface {
	Toast(ctx context.Context, callbackID, text string)
	Send(ctx context.Context, p chat.Place, replyTo int, text string, kb view.Keyboard)
	Edit(ctx context.Context, chatID int64, msgID int, text string)
	// Document sends data as a file, redacted like a message.
	Document(ctx context.Context, p chat.Place, replyTo int, name string, data []byte, caption string) error
	// May says whether the user may act in the chat (refused: the toast
	// that says who may).
	May(userID, chatID int64) (ok bool, refused string)
}

// Press is a press on one of control's buttons, as the gate let it through.
type Press struct {
	CallbackID string
	UserID     int64
	// Key and Place are the conversation of the pressed message, MsgID
	// the message.
	Key   string
	Place chat.Place
	MsgID int
	Data  string
}

// Undo answers presses on "↩ Undo" and its confirm. The callback data
// carries the turn's prompt id, so the button works after a restart (the
// core resumes the session to undo when no process is live).
type Undo struct {
	Core *chat.Core
	Out  Out
	Log  *slog.Logger
}

// Handles says whether data is one of control's buttons'.
func Handles(data string) bool {
	return isUndo(data) || strings.HasPrefix(data, view.AnywayPrefix)
}

func isUndo(data string) bool {
	return len(data) > len(view.UndoPrefix) &&
		(data[:len(view.UndoPrefix)] == view.UndoPrefix || data[:len(view.UndoConfirmPrefix)] == view.UndoConfirmPrefix)
}

// Buttons routes a press on one of control's buttons to its handler.
type Buttons struct {
	Core *chat.Core
	Out  Out
	Log  *slog.Logger
}

// Press hands p to the handler of its button.
func (b Buttons) Press(ctx context.Context, p Press) {
	if isUndo(p.Data) {
		Undo(b).Press(ctx, p)
		return
	}
	Anyway{Core: b.Core, Out: b.Out}.Press(ctx, p)
}

// Press undoes the turn the button names.
func (u Undo) Press(ctx context.Context, p Press) {
	if ok, refused := u.Out.May(p.UserID, p.Place.ChatID); !ok {
		u.Log.Info("refused an undo from a user who may not approve", "chat_id", p.Place.ChatID, "user_id", p.UserID)
		u.Out.Toast(ctx, p.CallbackID, refused)
		return
	}
	id := p.Data[len(view.UndoPrefix):]
	confirmed := p.Data[:len(view.UndoConfirmPrefix)] == view.UndoConfirmPrefix
	res, err := u.Core.Undo(ctx, p.Key, p.Place, id, confirmed)
	switch {
	case errors.Is(err, chat.ErrUndoBusy):
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndoBusy)
	case errors.Is(err, chat.ErrNoUndo):
		u.Out.Toast(ctx, p.CallbackID, view.ToastNoUndo)
	case errors.Is(err, engine.ErrNothingToRewind), errors.Is(err, chat.ErrNoSession):
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndoNone)
	case err != nil:
		u.Log.Warn("undo failed", "chat_id", p.Place.ChatID, "session_key", p.Key, "err", err)
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndoFailed)
	case res.Confirm:
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndoConfirm)
		text, kb := view.UndoConfirm(id, res.Files)
		u.Out.Send(ctx, p.Place, p.MsgID, text, kb)
	case confirmed:
		// The confirm becomes the outcome: its button is spent.
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndone)
		u.Out.Edit(ctx, p.Place.ChatID, p.MsgID, view.UndoDone(res.Files))
	default:
		u.Out.Toast(ctx, p.CallbackID, view.ToastUndone)
		u.Out.Send(ctx, p.Place, p.MsgID, view.UndoDone(res.Files), nil)
	}
}
