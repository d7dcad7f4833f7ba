// Package projects knows the owner's projects the way the owner's own tools
// do: git repositories (status, diffs, worktrees) through the git CLI, run
// on the machine Claude works on (a host.Host). It knows neither Telegram
// nor the coding agent (Claude Code's own files are runner/claudefiles'),
// so it is tested without either.
package projects

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/untether/untether/host"
)

// DefaultGitTimeout bounds one git command when Git.Timeout is zero.
const DefaultGitTimeout = 10 * time.Second

// maxGitOutput bounds what one git command may print; a diff longer than
// this is cut (and says so), so a huge change cannot exhaust memory.
const maxGitOutput = 16 << 20

// Git runs the git CLI: never through a shell, always with a time limit, and
// with every way a repository could make git run a program switched off
// (gitsafe.go), since the repository is written by Claude and the bot runs
// git unasked.
type Git struct {
	// Binary is the git executable; "git" (found on PATH) when empty.
	Binary string
	// Timeout bounds each command; DefaultGitTimeout when zero.
	Timeout time.Duration
	// Env is the environment git starts from (nil: the bot's). The bot
	// passes its own without its secrets: git runs as the bot's user, so
	// a command Claude runs could read them in /proc/<git pid>/environ.
	Env []string
	// Host is the machine git runs on, where the repositories are. Nil:
	// this one (host.Local).
	Host host.Host
}

// ErrNotRepo is returned for a directory that is not in a git repository.
var ErrNotRepo = errors.New("not a git repository")

// GitError is a git command that failed: its arguments, exit status and the
// first lines of what it said on stderr.
type GitError struct {
	Args   []string
	Code   int
	Stderr string
	Err    error
}

func (e *GitError) Error() string {
	msg := "git " + strings.Join(e.Args, " ")
	if e.Stderr != "" {
		return msg + ": " + e.Stderr
	}
	return msg + ": " + e.Err.Error()
}

func (e *GitError) Unwrap() error { return e.Err }

// gitCall is one git command.
type gitCall struct {
	dir   string
	args  []string
	env   []string // added to the environment
	stdin []byte
	// okCodes are exit statuses that are not failures (git diff --no-index
	// exits 1 when the files differ).
	okCodes []int
}

// run runs one git command in dir and returns its stdout (at most
// maxGitOutput bytes; cut reports more was printed).
func (g Git) run(ctx context.Context, c gitCall) (out []byte, cut bool, err error) {
	bin := g.Binary
	if bin == "" {
		bin = "git"
	}
	limit := g.Timeout
	if limit <= 0 {
		limit = DefaultGitTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := host.Cmd{Path: bin, Args: append(append([]string{"--no-pager"}, safeConfig...), c.args...),
		Dir: c.dir, Env: append(gitEnv(g.env()), c.env...), WaitDelay: 2 * time.Second}
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	stdout := &host.Capped{Max: maxGitOutput}
	stderr := host.Capped{Max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	// git may start helpers (filters, credential helpers): the host starts
	// it in a process group of its own, and the time limit kills the group.
	code := -1
	proc, err := host.Or(g.Host).Start(ctx, cmd)
	if err == nil {
		var exit host.Exit
		if exit, err = proc.Wait(); err == nil {
			code = exit.Code
			if code != 0 {
				err = errors.New(exit.String())
			}
		}
	}
	if err != nil {
		for _, ok := range c.okCodes {
			if code == ok && ctx.Err() == nil {
				return stdout.Bytes(), stdout.Cut, nil
			}
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s: %w", limit, ctx.Err())
		}
		msg := firstLines(stderr.String(), 3)
		if strings.Contains(msg, "not a git repository") || strings.Contains(msg, "cannot use bare repository") {
			err = ErrNotRepo
		}
		return nil, false, &GitError{Args: c.args, Code: code, Stderr: msg, Err: err}
	}
	return stdout.Bytes(), stdout.Cut, nil
}

// gitEnv is base without what would
// redirect git or run a program, with a fixed language (messages are
// parsed) and without optional locks, so reading a repository never takes
// the index lock from the owner's own git.
func gitEnv(base []string) []string {
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !droppedVar(name) {
			env = append(env, kv)
		}
	}
	env = append(env, safeEnv...)
	// Literal pathspecs: a path the user gives (/diff FILE) is a file name,
	// never pathspec magic such as ":(top)".
	return append(env, "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_LITERAL_PATHSPECS=1")
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.TrimSpace(strings.Join(lines, " "))
}

// Root returns the top directory of the repository (or worktree) that holds
// dir; ErrNotRepo when there is none.
func (g Git) Root(ctx context.Context, dir string) (string, error) {
	out, _, err := g.run(ctx, gitCall{dir: dir, args: []string{"rev-parse", "--show-toplevel"}})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}
