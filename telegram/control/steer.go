package control

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

// Steer answers "⚡ Send now" under a queued message's note and /steer. The
// button's data carries the queued message's id (Telegram's, in the
// pressed note's chat): the core sends it only if it still waits in that
// conversation's queue, so a forged or stale press changes nothing.
type Steer struct {
	Core *chat.Core
	Out  Out
	Log  *slog.Logger
}

// HandlesSteer says whether data is a "Send now" button's.
func HandlesSteer(data string) bool { return strings.HasPrefix(data, view.SteerPrefix) }

// Press sends the message the button names into the running turn.
func (s Steer) Press(ctx context.Context, p Press) {
	if ok, refused := s.Out.May(p.UserID, p.Place.ChatID); !ok {
		s.Log.Info("refused a send now from a user who may not approve", "chat_id", p.Place.ChatID, "user_id", p.UserID)
		s.Out.Toast(ctx, p.CallbackID, refused)
		return
	}
	msgID, err := strconv.Atoi(strings.TrimPrefix(p.Data, view.SteerPrefix))
	if err != nil {
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerGone)
		return
	}
	err = s.Core.Steer(ctx, p.Key, msgID)
	switch {
	case err == nil:
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteered)
	case errors.Is(err, chat.ErrNotQueued):
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerGone)
	case errors.Is(err, chat.ErrNotRunning):
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerIdle)
	case errors.Is(err, chat.ErrNoSteer):
		s.Out.Toast(ctx, p.CallbackID, view.ToastNoSteer)
	case errors.Is(err, chat.ErrSteerFiles):
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerFiles)
	case errors.Is(err, chat.ErrSteerLessSafe):
		// The running turn's process ends after it (started less safe
		// than the config asks): the message waits for the fresh one.
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerFailed)
	default:
		s.Log.Warn("send now failed", "chat_id", p.Place.ChatID, "session_key", p.Key, "err", err)
		s.Out.Toast(ctx, p.CallbackID, view.ToastSteerFailed)
	}
}

// Command answers /steer [on|off], replying to msgID. An engine that cannot
// steer says so and keeps the setting off.
func (s Steer) Command(ctx context.Context, key string, p chat.Place, msgID int, args string) {
	reply := func(text string) { s.Out.Send(ctx, p, msgID, text, nil) }
	arg := strings.ToLower(strings.TrimSpace(args))
	if arg != "" && arg != "on" && arg != "off" {
		reply(view.SteerUsage)
		return
	}
	if !s.Core.CanSteer(key) {
		reply(view.NoSteer)
		return
	}
	if arg == "" {
		reply(view.SteerSetting(s.Core.Settings(key).Steer))
		return
	}
	if err := s.Core.SetSteer(key, arg == "on"); err != nil {
		s.Log.Warn("could not store /steer", "chat_id", p.ChatID, "session_key", key, "err", err)
		reply(view.SettingNotSaved(err.Error()))
		return
	}
	reply(view.SteerSetting(arg == "on"))
}
