package projects

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/untether/untether/host"
)

// What changed in a working directory is measured by comparing snapshots
// of it: a snapshot is the git tree the directory's files would make if
// everything (untracked files too, ignored ones not) were committed. It is
// written with a temporary copy of the index, so the owner's index, stash,
// branches and files are never touched; the only trace is the snapshot's
// objects in the repository's object store, unreferenced, which git gc
// removes in time. Only the directory (and below) is snapshot and compared:
// a chat working in a subdirectory of a bigger repository sees its own part.

// maxIndex bounds the index copied for a snapshot (git's own index of a
// repository of a million files is about 100 MB).
const maxIndex = 512 << 20

// Tree is a snapshot: the id of a git tree object.
type Tree string

// FileChange is one file that differs between two trees.
type FileChange struct {
	// Status is git's letter: A added, D deleted, M modified, T type
	// changed.
	Status string
	// Path is relative to the directory compared.
	Path string
	// Added and Removed count lines; both are -1 for a binary file.
	Added, Removed int
}

// Binary reports a file git could not count lines of.
func (f FileChange) Binary() bool { return f.Added < 0 }

// Stat sums changes: "3 files changed, +40 −12".
type Stat struct {
	Files, Added, Removed int
}

// Sum adds the files up.
func Sum(files []FileChange) Stat {
	var s Stat
	for _, f := range files {
		s.Files++
		if !f.Binary() {
			s.Added += f.Added
			s.Removed += f.Removed
		}
	}
	return s
}

// Snapshot records the working directory dir as a tree (see above).
// ErrNotRepo when dir is not in a git repository.
func (g Git) Snapshot(ctx context.Context, dir string) (Tree, error) {
	out, _, err := g.run(ctx, gitCall{dir: dir, args: []string{"rev-parse", "--path-format=absolute", "--git-path", "index"}})
	if err != nil {
		return "", err
	}
	index := strings.TrimSpace(string(out))
	// The copy is made where git runs (the host's folder for temporary
	// files): git reads it by its name there.
	h := host.Or(g.Host)
	tmp, err := h.CreateTemp(ctx, "", "untether-index-")
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	defer h.Remove(context.WithoutCancel(ctx), tmpName)
	// Starting from the real index lets git skip every file whose stat
	// data did not change, so only new and changed files are read.
	// The index lies in the repository, which Claude writes: read it as
	// any planted file (never wait on a FIFO in its place).
	data, err := h.ReadFile(ctx, index, maxIndex)
	switch {
	case err == nil:
		_, err = tmp.Write(data)
	case errors.Is(err, fs.ErrNotExist):
		err = nil // a repository without an index yet: start empty
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("snapshot %s: copy the index: %w", dir, err)
	}
	if len(data) == 0 {
		h.Remove(ctx, tmpName) // git refuses an empty file as an index
	} else if err := g.sameTimes(ctx, index, tmpName); err != nil {
		return "", fmt.Errorf("snapshot %s: %w", dir, err)
	}
	// git add reads every new or changed file through the filter its
	// attributes name: none the project could have set up may run.
	env, err := g.filterOverrides(ctx, dir)
	if err != nil {
		return "", err
	}
	env = append(env, "GIT_INDEX_FILE="+tmpName)
	if _, _, err := g.run(ctx, gitCall{dir: dir, env: env, args: []string{"add", "--all", "--", "."}}); err != nil {
		return "", err
	}
	out, _, err = g.run(ctx, gitCall{dir: dir, env: env, args: []string{"write-tree"}})
	if err != nil {
		return "", err
	}
	return Tree(strings.TrimSpace(string(out))), nil
}

// sameTimes gives the index's copy the index's own times (touch -r, which
// only stats the reference). git tells a file changed in the same second
// as the index was written (same size, a clock that ticks in seconds)
// only by comparing it with the index file's time ("racily clean"
// entries): a copy dated now makes such a change look clean in one
// snapshot and not in the next, so a turn that changed nothing was said to.
func (g Git) sameTimes(ctx context.Context, index, copy string) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultGitTimeout)
	defer cancel()
	var errb host.Capped
	errb.Max = 1024
	p, err := host.Or(g.Host).Start(ctx, host.Cmd{Path: "touch", Args: []string{"-r", index, "--", copy},
		Env: gitEnv(g.env()), Stderr: &errb, WaitDelay: time.Second})
	if err != nil {
		return fmt.Errorf("date the index's copy: %w", err)
	}
	ex, err := p.Wait()
	if err == nil && ex.Code != 0 {
		err = fmt.Errorf("%s: %s", ex, strings.TrimSpace(errb.String()))
	}
	if err != nil {
		return fmt.Errorf("date the index's copy: %w", err)
	}
	return nil
}

// Base is the tree of the last commit (HEAD), or the empty tree in a
// repository without commits: what "uncommitted changes" are measured from.
func (g Git) Base(ctx context.Context, dir string) (Tree, error) {
	out, _, err := g.run(ctx, gitCall{dir: dir, args: []string{"rev-parse", "--verify", "--quiet", "HEAD^{tree}"}, okCodes: []int{1}})
	if err != nil {
		return "", err
	}
	if t := strings.TrimSpace(string(out)); t != "" {
		return Tree(t), nil
	}
	out, _, err = g.run(ctx, gitCall{dir: dir, args: []string{"hash-object", "-t", "tree", "--stdin"}, stdin: []byte{}})
	if err != nil {
		return "", err
	}
	return Tree(strings.TrimSpace(string(out))), nil
}

// diffArgs are the options of every tree comparison: only dir and below,
// paths relative to it, no renames (a rename is a deletion and an
// addition), and nothing the repository could use to run a program.
func diffArgs(format string, from, to Tree, paths []string) []string {
	args := []string{"diff-tree", "-r", "--relative", "--no-renames", "--no-ext-diff", "--no-textconv"}
	args = append(args, strings.Fields(format)...)
	args = append(args, string(from), string(to), "--")
	return append(args, paths...)
}

// Compare lists the files that differ from one tree to the other, in dir
// (and below), optionally only those matching paths (git pathspecs,
// relative to dir).
func (g Git) Compare(ctx context.Context, dir string, from, to Tree, paths ...string) ([]FileChange, error) {
	if from == to {
		return nil, nil
	}
	status, _, err := g.run(ctx, gitCall{dir: dir, args: diffArgs("--name-status -z", from, to, paths)})
	if err != nil {
		return nil, err
	}
	counts, _, err := g.run(ctx, gitCall{dir: dir, args: diffArgs("--numstat -z", from, to, paths)})
	if err != nil {
		return nil, err
	}
	return parseChanges(status, counts)
}

// parseChanges joins `--name-status -z` ("M\0path\0") and `--numstat -z`
// ("3\t1\tpath\0", "-\t-\tpath\0" for binary files) of the same diff.
func parseChanges(status, counts []byte) ([]FileChange, error) {
	var files []FileChange
	byPath := map[string]int{}
	f := strings.Split(strings.TrimSuffix(string(status), "\x00"), "\x00")
	if len(f) == 1 && f[0] == "" {
		return nil, nil
	}
	if len(f)%2 != 0 {
		return nil, fmt.Errorf("git diff-tree --name-status: odd output %q", status)
	}
	for i := 0; i < len(f); i += 2 {
		byPath[f[i+1]] = len(files)
		files = append(files, FileChange{Status: f[i][:1], Path: f[i+1]})
	}
	for _, rec := range strings.Split(strings.TrimSuffix(string(counts), "\x00"), "\x00") {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		i, ok := byPath[parts[2]]
		if !ok {
			continue
		}
		files[i].Added, files[i].Removed = count(parts[0]), count(parts[1])
	}
	return files, nil
}

func count(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1 // "-": binary
	}
	return n
}

// Patch is the unified diff from one tree to the other, in dir (and
// below), optionally only for paths. cut reports it was longer than the
// bot reads (16 MB) and ends early.
func (g Git) Patch(ctx context.Context, dir string, from, to Tree, paths ...string) (patch string, cut bool, err error) {
	out, cut, err := g.run(ctx, gitCall{dir: dir, args: diffArgs("--patch", from, to, paths)})
	if err != nil {
		return "", false, err
	}
	return string(out), cut, nil
}

// Uncommitted is what /diff shows: the files of dir that differ from the
// last commit (untracked ones included, ignored ones not), and the diff,
// both limited to paths when given.
func (g Git) Uncommitted(ctx context.Context, dir string, paths ...string) (files []FileChange, patch string, cut bool, err error) {
	base, err := g.Base(ctx, dir)
	if err != nil {
		return nil, "", false, err
	}
	now, err := g.Snapshot(ctx, dir)
	if err != nil {
		return nil, "", false, err
	}
	if files, err = g.Compare(ctx, dir, base, now, paths...); err != nil || len(files) == 0 {
		return files, "", false, err
	}
	patch, cut, err = g.Patch(ctx, dir, base, now, paths...)
	return files, patch, cut, err
}

// RepoName is the name of the repository's main folder, for messages.
func RepoName(root string) string { return filepath.Base(root) }
