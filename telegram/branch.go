package telegram

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/host"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/scope"
	"github.com/untether/untether/telegram/view"
)

// branchCommand lists the repository's worktrees (no name) or moves the
// chat to branch NAME's worktree, making it under [projects] worktrees_dir
// when the branch has none. The worktree must pass the checks of /cwd
// (inside project_roots, links resolved), and the move starts a fresh
// session there, like /cwd. Worktrees are never removed by the bot.
func (b *Bot) branchCommand(ctx context.Context, key string, pl place, replyTo int, arg string) string {
	cur := b.chatDir(key, pl, replyTo)
	m := b.core.MachineFor(key)
	list, err := m.Git.Worktrees(ctx, cur)
	switch {
	case errors.Is(err, projects.ErrNotRepo):
		return view.NotARepo(cur)
	case err != nil:
		return view.GitFailed(b.redact(err.Error()))
	}
	name := strings.TrimSpace(arg)
	if name == "" {
		return view.BranchList(worktreeItems(m.Host, list, cur))
	}
	if b.core.Working(key) {
		return view.BranchBusy
	}
	w, found := projects.FindBranch(list, name)
	made, created := false, false
	if !found {
		if len(list) == 0 {
			return view.NotARepo(cur)
		}
		w = projects.Worktree{Path: projects.WorktreePath(b.worktreesDir(m), list[0].Path, name), Branch: name}
		switch v := m.InRoots(w.Path, m.Roots()); {
		case v.Invisible:
			return view.BranchRefused(view.InvisibleDir(w.Path))
		case !v.Inside:
			return view.BranchRefused(fmt.Sprintf("The worktree would be %s, outside the directories this bot may work in (%s): set [projects] worktrees_dir to a folder inside [claude] project_roots, or widen the roots.",
				w.Path, strings.Join(m.Roots(), ", ")))
		}
		if created, err = m.Git.AddWorktree(ctx, cur, w.Path, name); err != nil {
			if errors.Is(err, projects.ErrBadBranch) {
				return view.BranchRefused(fmt.Sprintf("%q is not a branch name git accepts.", name))
			}
			b.log.Warn("/branch: git worktree add failed", "chat_id", pl.ChatID, "session_key", key, "err", err)
			return view.GitFailed(b.redact(err.Error()))
		}
		made = true
		b.log.Info("made a worktree", "chat_id", pl.ChatID, "session_key", key, "branch", name, "path", w.Path, "new_branch", created)
	}
	dir, err := b.core.ResolveWorkDir(m, cur, w.Path)
	if err != nil {
		return view.BranchRefused(dirRefusal(err))
	}
	if dir == cur {
		return view.BranchUnchanged(name, dir)
	}
	busy, err := b.core.MoveTo(key, dir)
	switch {
	case busy:
		return view.BranchBusy
	case err != nil:
		return view.SettingNotSaved(b.redact(err.Error()))
	}
	return view.BranchSwitched(name, dir, made, created)
}

// worktreesDir is [projects] worktrees_dir on the bot's machine, where
// it names a folder; elsewhere worktrees go beside their repository.
func (b *Bot) worktreesDir(m *chat.Machine) string {
	if m.Name == chat.LocalMachine {
		return b.cfg.WorktreesDir
	}
	return ""
}

// worktreeItems marks the worktree the chat works in: the one holding its
// directory by the one path rule (the deepest, as worktrees may lie
// inside the main one), links resolved on the host h.
func worktreeItems(h host.Host, list []projects.Worktree, dir string) []view.WorktreeItem {
	items := make([]view.WorktreeItem, len(list))
	best := -1
	for i, w := range list {
		items[i] = view.WorktreeItem{Path: w.Path, Branch: w.Branch, Main: w.Main}
		if (scope.Rule{Host: h, Roots: []string{w.Path}}).Check(dir).Inside && (best < 0 || len(w.Path) > len(list[best].Path)) {
			best = i
		}
	}
	if best >= 0 {
		items[best].Current = true
	}
	return items
}
