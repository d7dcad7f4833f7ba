package claudefiles

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/untether/untether/host"
)

// gitTops are the folders whose local settings the CLI may take rules
// from besides dir: the nearest folder at or above dir holding .git (a
// folder or a file), and, when that .git is a file naming a git directory
// (a `git worktree add`, or a file a cloned or unpacked project planted),
// the top of the repository that directory belongs to, which is the one
// Claude Code 2.1.330 uses (measured: runner.TestContractProjectRulesWorktree).
// Both are returned: reading one file too many only tells more.
//
// unread are the .git and commondir files on the way that exist but could
// not be followed (over the cap, an error of the machine, a deadline): the
// CLI may still follow them to a top whose rules the bot then cannot name
// (measured: a .git or commondir padded past a 64 KiB cap,
// runner.TestContractProjectRulesPaddedGitFile), so they are returned to
// be told, never dropped.
func gitTops(ctx context.Context, h host.Host, dir string) (tops []string, unread []*fs.PathError) {
	top, info, perr := gitTop(ctx, h, dir)
	if perr != nil {
		return nil, []*fs.PathError{perr}
	}
	if top == "" {
		return nil, nil
	}
	tops = []string{top}
	main, perr := mainTop(ctx, h, top, info)
	if perr != nil {
		unread = append(unread, perr)
	}
	if main != "" && main != top {
		tops = append(tops, main)
	}
	return tops, unread
}

// gitTop is the nearest folder at or above dir holding .git (a folder, or
// a worktree's file) and what Lstat said of that .git; "" when none. A
// .git that cannot be looked at (an error other than not existing) ends
// the walk with that error: whether its folder is the top is unknown.
func gitTop(ctx context.Context, h host.Host, dir string) (string, fs.FileInfo, *fs.PathError) {
	for d := filepath.Clean(dir); ; {
		p := filepath.Join(d, ".git")
		info, err := h.Lstat(ctx, p)
		if err == nil {
			return d, info, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, &fs.PathError{Op: "lstat", Path: p, Err: err}
		}
		up := filepath.Dir(d)
		if up == d {
			return "", nil, nil
		}
		d = up
	}
}

// mainTop follows top's .git file as the CLI does: "gitdir: X" with X
// relative to top (or absolute), then X's commondir relative to X; the
// repository's top is the folder holding that common directory when it is
// named .git, else the common directory itself (a bare one). "" when .git
// is a folder or not such a file, or X has no commondir (a submodule's).
// The CLI's further checks (X inside the common directory's worktrees/,
// X's gitdir file naming top's .git back) are not made: a planted layout
// that fails them only makes the bot tell more. A .git or commondir that
// exists but cannot be read is returned as the error.
func mainTop(ctx context.Context, h host.Host, top string, info fs.FileInfo) (string, *fs.PathError) {
	gitPath := filepath.Join(top, ".git")
	if info.IsDir() {
		return "", nil
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := h.Stat(ctx, gitPath)
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		if err != nil {
			return "", &fs.PathError{Op: "stat", Path: gitPath, Err: err}
		}
		if target.IsDir() {
			return "", nil
		}
	}
	gitFile, perr := gitLine(ctx, h, gitPath)
	if perr != nil || gitFile == "" {
		return "", perr
	}
	rest, ok := strings.CutPrefix(gitFile, "gitdir:")
	if !ok {
		return "", nil
	}
	gitDir := resolve(top, trimJS(rest))
	common, perr := gitLine(ctx, h, filepath.Join(gitDir, "commondir"))
	if perr != nil || common == "" {
		return "", perr
	}
	commonDir := resolve(gitDir, common)
	if filepath.Base(commonDir) == ".git" {
		return filepath.Dir(commonDir), nil
	}
	return commonDir, nil
}

// gitLine is a .git or commondir file's text, trimmed as the CLI trims it
// (the CLI reads any size: a line padded with 70,000 newlines is followed,
// so the settings files' cap bounds it); "" when the file does not exist.
func gitLine(ctx context.Context, h host.Host, path string) (string, *fs.PathError) {
	b, err := h.ReadFile(ctx, path, maxSettings)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return trimJS(string(b)), nil
}

// resolve is Node's path.resolve(base, p): p when absolute, else joined.
func resolve(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// trimJS trims as JavaScript's String.prototype.trim does: Unicode spaces
// and the byte order mark, which Go's TrimSpace keeps.
func trimJS(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}
