package telegram

import (
	"errors"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/view"
)

// cwdCommand shows or sets the chat's working directory. Claude Code keeps
// sessions per directory, so a change starts a fresh session; it waits for
// an idle chat rather than pulling the ground from under a running turn.
// The current directory (shown, and the base of a relative path) is the
// checked one.
func (b *Bot) cwdCommand(key string, pl place, replyTo int, arg string) string {
	arg = strings.TrimSpace(arg)
	b.chatDir(key, pl, replyTo)
	st := b.core.Settings(key)
	m := b.machines.Named(st.Host)
	var dir string
	switch arg {
	case "", "show":
		return view.WorkDirShow(st.WorkDir, st.WorkSource)
	case "clear":
		dir = ""
	default:
		var err error
		if dir, err = b.core.ResolveWorkDir(m, st.WorkDir, arg); err != nil {
			return view.WorkDirRefused(dirRefusal(err))
		}
	}
	target := dir
	if target == "" {
		target = m.WorkDir
	}
	if target == st.WorkDir {
		if err := b.store.SetWorkDir(key, dir); err != nil {
			return view.SettingNotSaved(b.redact(err.Error()))
		}
		st = b.core.Settings(key)
		return view.WorkDirUnchanged(st.WorkDir, st.WorkSource)
	}
	busy, err := b.core.MoveTo(key, dir)
	switch {
	case busy:
		return view.WorkDirBusy
	case err != nil:
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st = b.core.Settings(key)
	return view.WorkDirChanged(st.WorkDir, st.WorkSource)
}

// dirRefusal says why a directory was refused (chat.Core.ResolveWorkDir).
func dirRefusal(err error) string {
	if ie := (*chat.InvisibleDirError)(nil); errors.As(err, &ie) {
		return view.InvisibleDir(ie.Path)
	}
	return err.Error()
}

// chatDir is the chat's directory for the bot's own commands (/get, /diff,
// /branch, /sessions, /status, /cwd, Claude Code's commands), checked
// each time by checkedWorkDir exactly as a session start checks it: the
// stored setting may have been replaced by a link out of the roots, or the
// roots narrowed, since it was last used.
//
// While a session runs, commands use this checked setting, not the
// directory the process started in (actor.startDir): the command acts for
// the chat, and the setting is where the chat works and its next session
// starts (what /status shows). The two differ only for a while (after a
// /sessions switch, until the next turn restarts the process) or when the
// check fails, and then the fallback is what the chat gets. The running
// process keeps its own directory until its turn ends (its path rule sees
// a moved directory, see scope.Rule.WorkDirResolved); a failed check here
// only asks the actor to set the session aside, never pulls it from under
// a running turn.
func (b *Bot) chatDir(key string, pl place, replyTo int) string {
	return b.core.CheckedWorkDir(key, pl, replyTo)
}
