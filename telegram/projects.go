package telegram

import (
	"context"
	"errors"

	"github.com/untether/untether/projects"
	"github.com/untether/untether/telegram/view"
)

// What a turn changed, and the command that continues a session at the
// desk. The git work itself is package projects'.

// snapshot records the live process's working directory as the turn
// starts, so that what the turn changed can be told from what was already
// uncommitted. It returns "" when the directory is not in a git repository
// or git fails (then the footer says nothing about changes).
func (a *actor) snapshot(ctx context.Context) projects.Tree {
	a.mu.Lock()
	dir := a.dir
	a.mu.Unlock()
	if dir == "" {
		return ""
	}
	tree, err := a.b.cfg.Git.Snapshot(ctx, dir)
	if err != nil {
		if !errors.Is(err, projects.ErrNotRepo) {
			a.b.log.Warn("could not record the repository at turn start", "chat_id", a.place.ChatID, "session_key", a.key, "err", err)
		}
		return ""
	}
	return tree
}

// changes is what the turn changed in the repository: the files that
// differ between the snapshots at its start and now.
func (t *turn) changes(ctx context.Context) view.ChangeStat {
	a := t.a
	if t.before == "" {
		return view.ChangeStat{}
	}
	a.mu.Lock()
	dir := a.dir
	a.mu.Unlock()
	after := a.snapshot(ctx)
	if after == "" {
		return view.ChangeStat{}
	}
	files, err := a.b.cfg.Git.Compare(ctx, dir, t.before, after)
	if err != nil {
		a.b.log.Warn("could not compare the repository with the turn's start", "chat_id", a.place.ChatID, "err", err)
		return view.ChangeStat{}
	}
	s := projects.Sum(files)
	return view.ChangeStat{Files: s.Files, Added: s.Added, Removed: s.Removed}
}

// deskLine is the footer's command to continue the session at the desk,
// shown with /verbose only.
func (t *turn) deskLine(sessionID string) string {
	a := t.a
	if sessionID == "" || !a.b.settings(a.key).Verbose {
		return ""
	}
	a.mu.Lock()
	dir := a.dir
	a.mu.Unlock()
	if dir == "" {
		return ""
	}
	return projects.ResumeCommand(dir, sessionID)
}

// deskCommand is the command that continues the chat's session at the
// desk, for /status: in the directory the session belongs to.
func deskCommand(sessionID, dir string) string {
	if sessionID == "" || dir == "" {
		return ""
	}
	return projects.ResumeCommand(dir, sessionID)
}
