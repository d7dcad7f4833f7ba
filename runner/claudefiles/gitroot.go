package claudefiles

import (
	"context"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/untether/untether/host"
)

// maxGitFile bounds a .git file, commondir or gitdir read to find a
// repository's top: git writes one line.
const maxGitFile = 64 << 10

// gitTops are the folders whose local settings the CLI may take rules
// from besides dir: the nearest folder at or above dir holding .git (a
// folder or a file), and, when that .git is a file naming a git directory
// (a `git worktree add`, or a file a cloned or unpacked project planted),
// the top of the repository that directory belongs to, which is the one
// Claude Code 2.1.330 uses (measured: runner.TestContractProjectRulesWorktree).
// Both are returned: reading one file too many only tells more.
func gitTops(ctx context.Context, h host.Host, dir string) []string {
	top := gitTop(ctx, h, dir)
	if top == "" {
		return nil
	}
	tops := []string{top}
	if main := mainTop(ctx, h, top); main != "" && main != top {
		tops = append(tops, main)
	}
	return tops
}

// gitTop is the nearest folder at or above dir holding .git (a folder, or
// a worktree's file), "" when none.
func gitTop(ctx context.Context, h host.Host, dir string) string {
	for d := filepath.Clean(dir); ; {
		if _, err := h.Lstat(ctx, filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return ""
		}
		d = up
	}
}

// mainTop follows top's .git file as the CLI does: "gitdir: X" with X
// relative to top (or absolute), then X's commondir relative to X; the
// repository's top is the folder holding that common directory when it is
// named .git, else the common directory itself (a bare one). "" when .git
// is not such a file. The CLI's further checks (X inside the common
// directory's worktrees/, X's gitdir file naming top's .git back) are not
// made: a planted layout that fails them only makes the bot tell more.
func mainTop(ctx context.Context, h host.Host, top string) string {
	line := func(path string) (string, bool) {
		b, err := h.ReadFile(ctx, path, maxGitFile)
		if err != nil {
			return "", false
		}
		return trimJS(string(b)), true
	}
	gitFile, ok := line(filepath.Join(top, ".git"))
	if !ok {
		return ""
	}
	rest, ok := strings.CutPrefix(gitFile, "gitdir:")
	if !ok {
		return ""
	}
	gitDir := resolve(top, trimJS(rest))
	common, ok := line(filepath.Join(gitDir, "commondir"))
	if !ok || common == "" {
		return ""
	}
	commonDir := resolve(gitDir, common)
	if filepath.Base(commonDir) == ".git" {
		return filepath.Dir(commonDir)
	}
	return commonDir
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
