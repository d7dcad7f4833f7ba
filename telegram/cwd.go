package telegram

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/untether/untether/scope"
	"github.com/untether/untether/telegram/view"
)

// cwdCommand shows or sets the chat's working directory. Claude Code keeps
// sessions per directory, so a change starts a fresh session; it waits for
// an idle chat rather than pulling the ground from under a running turn.
func (b *Bot) cwdCommand(key, arg string) string {
	arg = strings.TrimSpace(arg)
	st := b.settings(key)
	var dir string
	switch arg {
	case "", "show":
		return view.WorkDirShow(st.WorkDir, st.WorkSource)
	case "clear":
		dir = ""
	default:
		var err error
		if dir, err = b.resolveWorkDir(st.WorkDir, arg); err != nil {
			return view.WorkDirRefused(err.Error())
		}
	}
	target := dir
	if target == "" {
		target = b.cfg.WorkDir
	}
	if target == st.WorkDir {
		if err := b.store.SetWorkDir(key, dir); err != nil {
			return view.SettingNotSaved(b.redact(err.Error()))
		}
		st = b.settings(key)
		return view.WorkDirUnchanged(st.WorkDir, st.WorkSource)
	}
	busy, err := b.moveTo(key, dir)
	switch {
	case busy:
		return view.WorkDirBusy
	case err != nil:
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	st = b.settings(key)
	return view.WorkDirChanged(st.WorkDir, st.WorkSource)
}

// moveTo points the chat at dir ("" for working_dir) and sets its session
// aside for /sessions, since Claude Code keeps sessions per directory: the
// next message starts a fresh one there. It does nothing (busy) while a
// turn runs or waits, rather than pull the ground from under it.
func (b *Bot) moveTo(key, dir string) (busy bool, err error) {
	a := b.existingActor(key)
	if a != nil && a.working() {
		return true, nil
	}
	if err := b.store.SetWorkDir(key, dir); err != nil {
		return false, err
	}
	if a != nil {
		a.requestNewSession()
	} else if err := b.store.ArchiveSession(key); err != nil {
		b.log.Warn("could not clear session", "session_key", key, "err", err)
	}
	return false, nil
}

// resolveWorkDir turns the user's path (absolute, ~/…, or relative to the
// current directory) into a resolved directory inside a project root, by
// the one rule (scope.InRoots): links resolved, so none can lead out of the
// roots, and a ".." must stay inside both as written and as the kernel
// walks it. The directory is the path as written, cleaned, links resolved
// (as a shell's cd takes it).
func (b *Bot) resolveWorkDir(current, arg string) (string, error) {
	abs, err := scope.Absolute(arg, current)
	if err != nil {
		return "", err
	}
	p := filepath.Clean(abs)
	v := scope.InRoots(abs, b.roots())
	fi, err := os.Stat(v.Path)
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
			p, strings.Join(b.roots(), ", "))
	}
	return v.Path, nil
}

// roots are the directories /cwd may point into: project_roots, or the
// default working directory alone.
func (b *Bot) roots() []string {
	if len(b.cfg.ProjectRoots) > 0 {
		return b.cfg.ProjectRoots
	}
	return []string{b.cfg.WorkDir}
}

// sessionWorkDir is the directory a new Claude session of the chat starts
// in. A chat's own directory was checked when /cwd set it, and is checked
// again here each time: today's project_roots may be narrower, or the
// directory may have been replaced by a link that leads elsewhere. One that
// fails sends the chat back to working_dir: the setting is cleared, the
// session (which belongs to the old directory) is set aside for /sessions,
// and the chat is told why. The resolved path is returned, so a link
// changed after this check cannot move the session.
func (a *actor) sessionWorkDir(ctx context.Context, replyTo int) string {
	b := a.b
	st := b.settings(a.key)
	if st.WorkSource != fromChat {
		return st.WorkDir
	}
	v := scope.InRoots(st.WorkDir, b.roots())
	resolved := v.Path
	fi, err := os.Stat(resolved)
	var why view.DirProblem
	switch {
	case v.Invisible:
		why = view.DirInvisible
	case err != nil:
		why = view.DirGone
	case !fi.IsDir():
		why = view.DirNotDir
	case !v.Inside && resolved != filepath.Clean(st.WorkDir):
		why = view.DirLeadsOutside
	case !v.Inside:
		why = view.DirOutsideRoots
	default:
		return resolved
	}
	b.log.Warn("the chat's working directory is no longer allowed: back to the default", "chat_id", a.place.ChatID,
		"session_key", a.key, "work_dir", st.WorkDir, "resolved", resolved, "err", err)
	if err := b.store.SetWorkDir(a.key, ""); err != nil {
		b.log.Warn("could not clear the working directory", "chat_id", a.place.ChatID, "err", err)
	}
	a.dropSession(ctx)
	b.notify(a.place, replyTo, view.WorkDirFallback(st.WorkDir, why, resolved, b.cfg.WorkDir))
	return b.cfg.WorkDir
}

// resolvedDir is dir with links resolved, as a process started there has
// it; dir itself when it cannot be resolved (the start then fails).
func resolvedDir(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return dir
}
