package chat

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/untether/untether/scope"
)

// sessionWorkDir is the directory a new Claude session of the chat starts
// in, checked by checkedWorkDir. A failed check sets the session aside at
// once: the process about to start must not resume it.
func (a *session) sessionWorkDir(ctx context.Context, replyTo int) string {
	return a.c.checkedWorkDir(a.key, a.place, replyTo, func() { a.dropSession(ctx) })
}

// checkedWorkDir is the one check of a chat's directory for use. A chat's
// own directory was checked when /cwd set it, and is checked again here
// each time: today's project_roots may be narrower, or the directory may
// have been replaced by a link that leads elsewhere. One that fails sends
// the chat back to working_dir: the setting is cleared, the session
// (which belongs to the old directory) is set aside for /sessions by
// setAside, and the chat is told why. The resolved path is returned, so a
// link changed after this check cannot move what uses it.
func (b *Core) checkedWorkDir(key string, pl Place, replyTo int, setAside func()) string {
	st := b.Settings(key)
	if st.WorkSource != fromChat {
		return st.WorkDir
	}
	m := b.machines.Named(st.Host)
	v := m.InRoots(st.WorkDir, m.Roots())
	resolved := v.Path
	fi, err := m.Host.Stat(context.Background(), resolved)
	var why DirProblem
	switch {
	case v.Invisible:
		why = DirInvisible
	case err != nil:
		why = DirGone
	case !fi.IsDir():
		why = DirNotDir
	case !v.Inside && resolved != filepath.Clean(st.WorkDir):
		why = DirLeadsOutside
	case !v.Inside:
		why = DirOutsideRoots
	default:
		return resolved
	}
	b.log.Warn("the chat's working directory is no longer allowed: back to the default", "chat_id", pl.ChatID,
		"session_key", key, "work_dir", st.WorkDir, "resolved", resolved, "err", err)
	if err := b.store.SetWorkDir(key, ""); err != nil {
		b.log.Warn("could not clear the working directory", "chat_id", pl.ChatID, "session_key", key, "err", err)
	}
	setAside()
	b.note(key, pl, replyTo, NoteWorkDirFallback{Stored: st.WorkDir, Why: why, Resolved: resolved, Default: m.WorkDir})
	return m.WorkDir
}

// SetAside ends the conversation's session for /sessions from outside its
// session (a command): the record is archived at once, so what runs next
// (a list, a process starting) no longer takes it for current, and a live
// process is closed by the actor itself, after a running turn. That turn
// keeps its directory; if it records its session meanwhile, the actor's
// drop archives that too.
func (b *Core) SetAside(key string) {
	if err := b.store.ArchiveSession(key); err != nil {
		b.log.Warn("could not clear session", "session_key", key, "err", err)
	}
	if a := b.existing(key); a != nil {
		a.requestNewSession()
	}
}

// CheckedWorkDir is the conversation's directory for a frontend's own
// commands (/get, /diff, /branch, /sessions, /status, /cwd, the agent's
// commands), checked each time by checkedWorkDir exactly as a session start
// checks it; a failed check sets the session aside for /sessions.
func (b *Core) CheckedWorkDir(key string, pl Place, replyTo int) string {
	return b.checkedWorkDir(key, pl, replyTo, func() { b.SetAside(key) })
}

// MoveTo points the conversation at dir ("" for working_dir) and sets its session
// aside for /sessions, since Claude Code keeps sessions per directory: the
// next message starts a fresh one there. It does nothing (busy) while a
// turn runs or waits, rather than pull the ground from under it.
func (b *Core) MoveTo(key, dir string) (busy bool, err error) {
	if b.Working(key) {
		return true, nil
	}
	if err := b.store.SetWorkDir(key, dir); err != nil {
		return false, err
	}
	b.SetAside(key)
	return false, nil
}

// ResolveWorkDir turns the user's path (absolute, ~/…, or relative to the
// current directory) into a resolved directory inside a project root, by
// the one rule (scope.InRoots): links resolved, so none can lead out of the
// roots, and a ".." must stay inside both as written and as the kernel
// walks it. The directory is the path as written, cleaned, links resolved
// (as a shell's cd takes it).
func (b *Core) ResolveWorkDir(m *Machine, current, arg string) (string, error) {
	abs, err := scope.Absolute(arg, current)
	if err != nil {
		return "", err
	}
	p := filepath.Clean(abs)
	v := m.InRoots(abs, m.Roots())
	fi, err := m.Host.Stat(context.Background(), v.Path)
	switch {
	case v.Invisible:
		return "", &InvisibleDirError{Path: p}
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

// InvisibleDirError is a directory whose name holds an invisible or
// direction-changing character: it could pass for another.
type InvisibleDirError struct{ Path string }

func (e *InvisibleDirError) Error() string { return e.Path + ": the name holds an invisible character" }

// ErrNoMachine is a machine name that is not configured; ErrBusy a
// conversation with a turn running or messages waiting.
var (
	ErrNoMachine = errors.New("no such machine")
	ErrBusy      = errors.New("the conversation is busy")
)

// MoveToMachine moves the conversation to machine name. A move forgets its
// directory (a path on one machine means nothing on another) and sets its
// session aside: the agent keeps its sessions on the machine it ran on.
// Like MoveTo it waits for an idle conversation (ErrBusy). moved is false
// when it works there already.
func (b *Core) MoveToMachine(key, name string) (m *Machine, moved bool, err error) {
	m, ok := b.machines.Get(name)
	if !ok {
		return nil, false, ErrNoMachine
	}
	if name == b.Settings(key).Host {
		return m, false, nil
	}
	if b.Working(key) {
		return m, false, ErrBusy
	}
	if err := b.store.SetHost(key, name); err != nil {
		return m, false, err
	}
	b.SetAside(key)
	return m, true, nil
}
