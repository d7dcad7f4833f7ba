package telegram

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/untether/untether/telegram/render"
)

// cwdCommand shows or sets the chat's working directory. Claude Code keeps
// sessions per directory, so a change starts a fresh session; it waits for
// an idle chat rather than pulling the ground from under a running turn.
func (b *Bot) cwdCommand(key, arg string) string {
	arg = strings.TrimSpace(arg)
	st := b.settings(key)
	show := func(st chatSettings) string {
		return fmt.Sprintf("Working directory: <code>%s</code> (%s).", render.Escape(st.WorkDir), st.WorkSource)
	}
	var dir string
	switch arg {
	case "", "show":
		return show(st)
	case "clear":
		dir = ""
	default:
		var err error
		if dir, err = b.resolveWorkDir(st.WorkDir, arg); err != nil {
			return render.Escape(err.Error())
		}
	}
	target := dir
	if target == "" {
		target = b.cfg.WorkDir
	}
	if target == st.WorkDir {
		if err := b.store.SetWorkDir(key, dir); err != nil {
			return "Could not save the setting: " + render.Escape(b.redact(err.Error()))
		}
		return show(b.settings(key)) + " Unchanged."
	}
	a := b.existingActor(key)
	if a != nil && a.working() {
		return "A turn is running or queued in this chat: wait for it, or /cancel it, then change the directory."
	}
	if err := b.store.SetWorkDir(key, dir); err != nil {
		return "Could not save the setting: " + render.Escape(b.redact(err.Error()))
	}
	if a != nil {
		a.requestNewSession()
	} else if err := b.store.ArchiveSession(key); err != nil {
		b.log.Warn("could not clear session", "session_key", key, "err", err)
	}
	return show(b.settings(key)) + " Your next message starts a fresh Claude session there (a session belongs to its directory)."
}

// resolveWorkDir turns the user's path (absolute, ~/…, or relative to the
// current directory) into a resolved directory inside a project root. Links
// are resolved first, so none can lead out of the roots.
func (b *Bot) resolveWorkDir(current, arg string) (string, error) {
	p := arg
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %w", err)
		}
		p = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(current, p)
	}
	resolved, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s does not exist", p)
		}
		return "", fmt.Errorf("%s: %w", p, err)
	}
	if fi, err := os.Stat(resolved); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	roots := b.cfg.ProjectRoots
	if len(roots) == 0 {
		roots = []string{b.cfg.WorkDir}
	}
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rr, resolved); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return resolved, nil
		}
	}
	return "", fmt.Errorf("%s is outside the directories this bot may work in (%s); [claude] project_roots in the config sets them",
		p, strings.Join(roots, ", "))
}
