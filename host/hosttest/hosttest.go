// Package hosttest holds a host for tests: Recorder passes every call on
// to another host and notes it, so a test can tell that a package really
// goes through the host it was given.
package hosttest

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/untether/untether/host"
)

// Recorder is a Host that notes each call ("Start git", "Stat /a/b") and
// hands it to Host (host.Local when nil). Safe for concurrent use.
type Recorder struct {
	Host host.Host
	// Private are folders it reports as the bot's own there (host.Keeper),
	// as host/ssh reports its ~/.cache/untether; those of Host are added.
	Private []string

	mu    sync.Mutex
	calls []string
}

var (
	_ host.Host   = (*Recorder)(nil)
	_ host.Keeper = (*Recorder)(nil)
)

// Calls are the calls so far, in order: the method's name and its first
// string argument, if any.
func (r *Recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// Called reports whether a call starting with prefix was made ("Start",
// "Stat /tmp/x").
func (r *Recorder) Called(prefix string) bool {
	return slices.ContainsFunc(r.Calls(), func(c string) bool { return strings.HasPrefix(c, prefix) })
}

func (r *Recorder) note(call ...string) host.Host {
	r.mu.Lock()
	r.calls = append(r.calls, strings.Join(call, " "))
	r.mu.Unlock()
	return host.Or(r.Host)
}

func (r *Recorder) Getenv(key string) string { return r.note("Getenv", key).Getenv(key) }

func (r *Recorder) Start(ctx context.Context, c host.Cmd) (host.Process, error) {
	return r.note("Start", c.Path).Start(ctx, c)
}

func (r *Recorder) LookPath(ctx context.Context, name string) (string, error) {
	return r.note("LookPath", name).LookPath(ctx, name)
}

func (r *Recorder) Descendants(ctx context.Context, pid int) ([]int, error) {
	return r.note("Descendants").Descendants(ctx, pid)
}

func (r *Recorder) Kill(ctx context.Context, pids []int, sig syscall.Signal) error {
	return r.note("Kill").Kill(ctx, pids, sig)
}

func (r *Recorder) TreeCPU(ctx context.Context, pid int) (time.Duration, error) {
	return r.note("TreeCPU").TreeCPU(ctx, pid)
}

func (r *Recorder) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	return r.note("Stat", path).Stat(ctx, path)
}

func (r *Recorder) Lstat(ctx context.Context, path string) (fs.FileInfo, error) {
	return r.note("Lstat", path).Lstat(ctx, path)
}

func (r *Recorder) Readlink(ctx context.Context, path string) (string, error) {
	return r.note("Readlink", path).Readlink(ctx, path)
}

func (r *Recorder) ResolveLinks(ctx context.Context, path string) (string, error) {
	return r.note("ResolveLinks", path).ResolveLinks(ctx, path)
}

func (r *Recorder) Open(ctx context.Context, path string, max int64) (host.File, fs.FileInfo, error) {
	return r.note("Open", path).Open(ctx, path, max)
}

func (r *Recorder) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return r.note("ReadFile", path).ReadFile(ctx, path, max)
}

func (r *Recorder) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	return r.note("ReadDir", path).ReadDir(ctx, path)
}

func (r *Recorder) MkdirAll(ctx context.Context, path string, perm fs.FileMode) error {
	return r.note("MkdirAll", path).MkdirAll(ctx, path, perm)
}

func (r *Recorder) CreateTemp(ctx context.Context, dir, pattern string) (host.Writer, error) {
	return r.note("CreateTemp", dir).CreateTemp(ctx, dir, pattern)
}

func (r *Recorder) Rename(ctx context.Context, oldpath, newpath string) error {
	return r.note("Rename", oldpath).Rename(ctx, oldpath, newpath)
}

func (r *Recorder) Remove(ctx context.Context, path string) error {
	return r.note("Remove", path).Remove(ctx, path)
}

// PrivateDirs are Private and those of Host (host.Keeper). Not noted:
// the path rule asks it at every check, and Calls lists the file and
// process calls a package makes.
func (r *Recorder) PrivateDirs(ctx context.Context) ([]string, error) {
	inner, err := host.PrivateDirs(ctx, host.Or(r.Host))
	return append(slices.Clone(r.Private), inner...), err
}
