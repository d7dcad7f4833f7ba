package telegram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/scope"
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
		if dir, err = b.resolveWorkDir(m, st.WorkDir, arg); err != nil {
			return view.WorkDirRefused(err.Error())
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
	busy, err := b.moveTo(key, dir)
	switch {
	case busy:
		return view.WorkDirBusy
	case err != nil:
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st = b.core.Settings(key)
	return view.WorkDirChanged(st.WorkDir, st.WorkSource)
}

// moveTo points the chat at dir ("" for working_dir) and sets its session
// aside for /sessions, since Claude Code keeps sessions per directory: the
// next message starts a fresh one there. It does nothing (busy) while a
// turn runs or waits, rather than pull the ground from under it.
func (b *Bot) moveTo(key, dir string) (busy bool, err error) {
	if b.core.Working(key) {
		return true, nil
	}
	if err := b.store.SetWorkDir(key, dir); err != nil {
		return false, err
	}
	b.core.SetAside(key)
	return false, nil
}

// resolveWorkDir turns the user's path (absolute, ~/…, or relative to the
// current directory) into a resolved directory inside a project root, by
// the one rule (scope.InRoots): links resolved, so none can lead out of the
// roots, and a ".." must stay inside both as written and as the kernel
// walks it. The directory is the path as written, cleaned, links resolved
// (as a shell's cd takes it).
func (b *Bot) resolveWorkDir(m *chat.Machine, current, arg string) (string, error) {
	abs, err := scope.Absolute(arg, current)
	if err != nil {
		return "", err
	}
	p := filepath.Clean(abs)
	v := m.InRoots(abs, m.Roots())
	fi, err := m.Host.Stat(context.Background(), v.Path)
	switch {
	case v.Invisible:
		return "", errors.New(view.InvisibleDir(p))
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%s does not exist", p)
	case err != nil:
		return "", fmt.Errorf("%s: %w", p, err)
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", p)
	case !v.Inside:
		return "", fmt.Errorf("%s is outside the directories this bot may work in (%s); [claude] project_roots in the config sets them",
			p, strings.Join(m.Roots(), ", "))
	}
	return v.Path, nil
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
