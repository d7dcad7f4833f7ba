// Package engines is /engine: which agent (Claude Code, Codex) a chat
// runs, shown with a button per engine, and the switch, by command or
// press. The core keeps the choice and applies it at the chat's next
// process (chat.Core.SwitchEngine); this package only speaks Telegram.
package engines

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/control"
	"github.com/untether/untether/telegram/view"
)

// Switch answers /engine and presses on its buttons.
type Switch struct {
	Core *chat.Core
	Out  control.Out
	Log  *slog.Logger
}

// Handles says whether data is one of /engine's buttons'.
func Handles(data string) bool { return strings.HasPrefix(data, view.EnginePrefix) }

// Command is /engine [name]: alone, the engines as buttons; with a name,
// the switch.
func (s Switch) Command(ctx context.Context, key string, pl chat.Place, msgID int, arg string) {
	name := strings.ToLower(strings.TrimSpace(arg))
	m := s.Core.MachineFor(key)
	names := m.EngineNames()
	if len(names) < 2 {
		s.Out.Send(ctx, pl, msgID, view.EngineOnlyOne, nil)
		return
	}
	if name == "" || name == "show" {
		text, kb := view.EngineList(m.EngineName, names)
		s.Out.Send(ctx, pl, msgID, text, kb)
		return
	}
	s.Out.Send(ctx, pl, msgID, s.switchTo(key, pl, name, names), nil)
}

// Press switches to the pressed engine; the list becomes the outcome.
func (s Switch) Press(ctx context.Context, p control.Press) {
	if ok, refused := s.Out.May(p.UserID, p.Place.ChatID); !ok {
		s.Log.Info("refused an engine switch from a user who may not approve", "chat_id", p.Place.ChatID, "user_id", p.UserID)
		s.Out.Toast(ctx, p.CallbackID, refused)
		return
	}
	name := strings.TrimPrefix(p.Data, view.EnginePrefix)
	s.Out.Toast(ctx, p.CallbackID, "")
	s.Out.Edit(ctx, p.Place.ChatID, p.MsgID, s.switchTo(p.Key, p.Place, name, s.Core.MachineFor(p.Key).EngineNames()))
}

func (s Switch) switchTo(key string, pl chat.Place, name string, names []string) string {
	resumed, moved, err := s.Core.SwitchEngine(key, name)
	switch {
	case errors.Is(err, chat.ErrNoEngine):
		return view.EngineUnknown(name, names)
	case errors.Is(err, chat.ErrBusy):
		return view.EngineBusy
	case err != nil:
		s.Log.Warn("could not switch engines", "chat_id", pl.ChatID, "session_key", key, "err", err)
		return view.SettingNotSaved(err.Error())
	case !moved:
		return view.EngineUnchanged(name)
	}
	s.Log.Info("engine switched", "chat_id", pl.ChatID, "session_key", key, "engine", name, "resumed", resumed)
	return view.EngineSwitched(name, resumed != "")
}
