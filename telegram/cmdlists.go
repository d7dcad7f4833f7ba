package telegram

import (
	"strings"
	"time"

	"github.com/untether/untether/engine"
)

// groupListWait is how long the polling loop waits, once per directory
// and run, for a background read when a group's command may be the
// project's: in a group only Claude Code's commands pass unnamed, so the
// list decides whether the message is this bot's at all. The read itself
// is bounded by safefile; this bounds the loop.
const groupListWait = time.Second

// menuName is the name a command can have in Telegram's command menu,
// which allows only a–z, 0–9 and "_" (at most 32): lower case, with "-"
// and ":" as "_". ok is false when no such name exists.
func menuName(name string) (string, bool) {
	m := strings.NewReplacer("-", "_", ":", "_").Replace(strings.ToLower(name))
	if len(m) == 0 || len(m) > 32 {
		return "", false
	}
	for i := 0; i < len(m); i++ {
		c := m[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "", false
		}
	}
	return m, true
}

// findCommand returns the command a name typed in Telegram means: the
// command of that exact name, else the one whose menu name it is (a tap in
// the menu sends "/code_review" for "code-review").
func findCommand(cmds []engine.Command, typed string) (engine.Command, bool) {
	for _, c := range cmds {
		if c.Name == typed {
			return c, true
		}
	}
	for _, c := range cmds {
		if m, ok := menuName(c.Name); ok && m == strings.ToLower(typed) {
			return c, true
		}
	}
	return engine.Command{}, false
}
