package projects

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Worktree is one working tree of a repository (`git worktree list`).
type Worktree struct {
	Path string
	// Branch is the branch checked out, short ("feature/x"); "" when the
	// head is detached.
	Branch string
	// Main is the repository's main working tree (the first listed).
	Main bool
	// Prunable: git says its folder is gone.
	Prunable bool
}

// Worktrees lists the working trees of the repository holding dir, the
// main one first.
func (g Git) Worktrees(ctx context.Context, dir string) ([]Worktree, error) {
	out, _, err := g.run(ctx, gitCall{dir: dir, args: []string{"worktree", "list", "--porcelain", "-z"}})
	if err != nil {
		return nil, err
	}
	return parseWorktrees(string(out)), nil
}

// parseWorktrees reads `git worktree list --porcelain -z`: attributes
// separated by NUL, worktrees by an empty attribute.
func parseWorktrees(out string) []Worktree {
	var list []Worktree
	var cur *Worktree
	bare := false
	for _, attr := range strings.Split(out, "\x00") {
		key, val, _ := strings.Cut(attr, " ")
		switch key {
		case "worktree":
			list = append(list, Worktree{Path: val, Main: len(list) == 0})
			cur, bare = &list[len(list)-1], false
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(val, "refs/heads/")
			}
		case "prunable":
			if cur != nil {
				cur.Prunable = true
			}
		case "bare":
			bare = true
		case "":
			if bare && cur != nil { // a bare repository has no files to work in
				list = list[:len(list)-1]
				cur, bare = nil, false
			}
		}
	}
	return list
}

// ErrBadBranch is a branch name git would refuse.
var ErrBadBranch = errors.New("not a valid branch name")

// CheckBranch says whether git accepts name as a branch name.
func (g Git) CheckBranch(ctx context.Context, dir, name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsAny(name, " \t\n") {
		return fmt.Errorf("%q: %w", name, ErrBadBranch)
	}
	if _, _, err := g.run(ctx, gitCall{dir: dir, args: []string{"check-ref-format", "--branch", name}}); err != nil {
		return fmt.Errorf("%q: %w", name, ErrBadBranch)
	}
	return nil
}

// WorktreePath is where /branch puts the worktree of branch for the
// repository whose main working tree is main: under worktreesDir in a
// folder named after the repository, or, with no worktreesDir, in
// "<main>.worktrees" beside the repository. A "/" in the branch becomes
// "-", so each branch is one folder.
func WorktreePath(worktreesDir, main, branch string) string {
	name := strings.ReplaceAll(branch, "/", "-")
	if worktreesDir == "" {
		return filepath.Join(filepath.Dir(main), filepath.Base(main)+".worktrees", name)
	}
	return filepath.Join(worktreesDir, filepath.Base(main), name)
}

// FindBranch returns the worktree that has branch checked out, if any.
func FindBranch(list []Worktree, branch string) (Worktree, bool) {
	for _, w := range list {
		if w.Branch == branch {
			return w, true
		}
	}
	return Worktree{}, false
}

// AddWorktree makes a worktree at path for branch, in the repository of
// dir: it checks out the branch when it exists, else creates it from the
// commit dir has checked out. created reports a new branch.
func (g Git) AddWorktree(ctx context.Context, dir, path, branch string) (created bool, err error) {
	if err := g.CheckBranch(ctx, dir, branch); err != nil {
		return false, err
	}
	_, _, err = g.run(ctx, gitCall{dir: dir, args: []string{"rev-parse", "--verify", "--quiet", "refs/heads/" + branch}})
	exists := err == nil
	var ge *GitError
	if err != nil && (!errors.As(err, &ge) || ge.Code != 1) {
		return false, err
	}
	args := []string{"worktree", "add", "--no-checkout", "--", path, branch}
	if !exists {
		args = []string{"worktree", "add", "--no-checkout", "-b", branch, "--", path}
	}
	if _, _, err := g.run(ctx, gitCall{dir: dir, args: args}); err != nil {
		return false, err
	}
	// The checkout writes every file through the filter its attributes
	// name: none the project could have set up may run. The drivers are
	// asked for in the new worktree itself, on its branch and with its git
	// directory, since a conditional include (includeIf "onbranch:",
	// "gitdir:") can define drivers there that the chat's directory does
	// not see. git worktree add checks out so too (reset --hard).
	env, err := g.filterOverrides(ctx, path)
	if err != nil {
		return false, err
	}
	if _, _, err := g.run(ctx, gitCall{dir: path, env: env, args: []string{"reset", "--hard", "--quiet", "--no-recurse-submodules"}}); err != nil {
		return false, err
	}
	return !exists, nil
}
