package chat

import (
	"context"
	"errors"
	"fmt"

	"github.com/untether/untether/projects"
)

// What a turn changed, and the command that continues a session at the
// desk. The git work itself is package projects'.

// snapshot records the live process's working directory as the turn
// starts, so that what the turn changed can be told from what was already
// uncommitted. It returns "" when the directory is not in a git repository
// or git fails (then the footer says nothing about changes).
func (a *session) snapshot(ctx context.Context) projects.Tree {
	a.mu.Lock()
	dir := a.startDir
	a.mu.Unlock()
	if dir == "" || a.c.slowGit.Skip(dir) {
		return ""
	}
	tree, err := a.machine().Git.Snapshot(ctx, dir)
	if err != nil {
		if a.c.slowGit.Note(dir, err) {
			a.c.log.Warn("git ran out of time in this directory: the change footer is left out there for a while",
				"chat_id", a.place.ChatID, "session_key", a.key, "dir", dir, "skip_for", projects.DefaultSlowFor, "err", err)
		} else if !errors.Is(err, projects.ErrNotRepo) {
			a.c.log.Warn("could not record the repository at turn start", "chat_id", a.place.ChatID, "session_key", a.key, "err", err)
		}
		return ""
	}
	return tree
}

// changes is what the turn changed in the repository: the files that
// differ between the snapshots at its start and now.
func (t *turn) changes(ctx context.Context) ChangeStat {
	a := t.a
	if t.before == "" {
		return ChangeStat{}
	}
	a.mu.Lock()
	dir := a.startDir
	a.mu.Unlock()
	after := a.snapshot(ctx)
	if after == "" {
		return ChangeStat{}
	}
	files, err := a.machine().Git.Compare(ctx, dir, t.before, after)
	if err != nil {
		a.c.log.Warn("could not compare the repository with the turn's start", "chat_id", a.place.ChatID, "err", err)
		return ChangeStat{}
	}
	a.mu.Lock()
	a.changed = turnTrees{dir: dir, before: t.before, after: after, files: files}
	a.mu.Unlock()
	s := projects.Sum(files)
	return ChangeStat{Files: s.Files, Added: s.Added, Removed: s.Removed}
}

// turnTrees are a turn's snapshots at its start and end, kept for its
// diff (the trees' objects stay in the repository until git gc prunes
// them, weeks later).
type turnTrees struct {
	dir           string
	before, after projects.Tree
	files         []projects.FileChange
}

// TurnDiff is what a turn changed in its working directory: the files
// (the footer's count) and the patch.
type TurnDiff struct {
	Dir   string
	Files []projects.FileChange
	Patch string
	Cut   bool // the patch was cut at git's output limit
}

// LastTurnDiff is what the conversation's last turn changed, between the
// snapshots its footer compared; ok is false when no turn of this bot
// process measured one (no repository, git failed, or not since a restart).
func (c *Core) LastTurnDiff(ctx context.Context, key string) (d TurnDiff, ok bool, err error) {
	s := c.existing(key)
	if s == nil {
		return TurnDiff{}, false, nil
	}
	s.mu.Lock()
	tt := s.changed
	s.mu.Unlock()
	if tt.after == "" {
		return TurnDiff{}, false, nil
	}
	d = TurnDiff{Dir: tt.dir, Files: tt.files}
	if len(tt.files) > 0 {
		if d.Patch, d.Cut, err = s.machine().Git.Patch(ctx, tt.dir, tt.before, tt.after); err != nil {
			return TurnDiff{}, false, fmt.Errorf("the last turn's diff in %s: %w", tt.dir, err)
		}
	}
	return d, true, nil
}

// deskLine is the footer's command to continue the session at the desk,
// shown with /verbose only.
func (t *turn) deskLine(sessionID string) string {
	a := t.a
	if sessionID == "" || !a.c.Settings(a.key).Verbose {
		return ""
	}
	a.mu.Lock()
	dir := a.startDir
	a.mu.Unlock()
	if dir == "" {
		return ""
	}
	return a.machine().DeskCommand(sessionID, dir)
}

// storeMark is what the bot last saw of its live session's file in Claude
// Code's store: its size, and the prompts in it.
type storeMark struct {
	id    string
	size  int64
	turns int
}

// markStore notes the session's file after a turn of the bot's own.
func (a *session) markStore(ctx context.Context, id string) {
	a.mu.Lock()
	dir := a.startDir
	a.mu.Unlock()
	var m storeMark
	if past := a.machine().PastStore(); past != nil && id != "" && dir != "" {
		if s, err := past.ReadSession(ctx, dir, id); err == nil {
			m = storeMark{id: id, size: s.Size, turns: s.Turns}
		}
	}
	a.mu.Lock()
	a.mark = m
	a.mu.Unlock()
}

// continuedElsewhere tells a live session that got prompts from another
// Claude Code (at the desk) since the bot's last turn: the bot's process
// does not know them, and writing on would mix two histories in one file.
// Lines the CLI writes after its result (the last prompt, the cost) change
// the size but not the prompts, so only new prompts count.
func (a *session) continuedElsewhere(ctx context.Context) bool {
	a.mu.Lock()
	m, dir := a.mark, a.startDir
	a.mu.Unlock()
	past := a.machine().PastStore()
	if m.id == "" || past == nil {
		return false
	}
	if st, ok := past.StatSession(dir, m.id); !ok || st.Size == m.size {
		return false
	}
	s, err := past.ReadSession(ctx, dir, m.id)
	return err == nil && s.Turns > m.turns
}
