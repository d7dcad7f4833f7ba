package host

import (
	"context"
	"io/fs"
	"os"

	"github.com/untether/untether/safefile"
)

// Local is this machine: the bot's own processes, file system and /proc.
// Its reads are package safefile's, unchanged. The zero value is ready.
type Local struct{}

var _ Host = Local{}

// Getenv is the bot's own environment, which the processes it starts here
// inherit (less what each caller strips).
func (Local) Getenv(key string) string { return os.Getenv(key) }

// The file operations ignore ctx where the call cannot hang on its own
// (a local stat, a link read); reads that can (a FIFO, a hung mount) are
// bounded by safefile.

func (Local) Stat(_ context.Context, path string) (fs.FileInfo, error)  { return os.Stat(path) }
func (Local) Lstat(_ context.Context, path string) (fs.FileInfo, error) { return os.Lstat(path) }
func (Local) Readlink(_ context.Context, path string) (string, error)   { return os.Readlink(path) }

func (l Local) ResolveLinks(ctx context.Context, path string) (string, error) {
	return WalkLinks(ctx, l, path)
}

func (Local) Open(_ context.Context, path string, max int64) (File, fs.FileInfo, error) {
	f, fi, err := safefile.Open(path, max)
	if err != nil {
		return nil, fi, err
	}
	return localFile{f}, fi, nil
}

func (Local) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return safefile.ReadFile(ctx, path, max)
}

func (Local) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	return safefile.ReadDir(ctx, path)
}

func (Local) MkdirAll(_ context.Context, path string, perm fs.FileMode) error {
	return os.MkdirAll(path, perm)
}

func (Local) CreateTemp(_ context.Context, dir, pattern string) (Writer, error) {
	return os.CreateTemp(dir, pattern)
}

func (Local) Rename(_ context.Context, oldpath, newpath string) error {
	return os.Rename(oldpath, newpath)
}

func (Local) Remove(_ context.Context, path string) error { return os.Remove(path) }

// localFile is a file safefile opened.
type localFile struct{ f *os.File }

func (l localFile) ReadAll(ctx context.Context, max int64) ([]byte, error) {
	return safefile.ReadOpen(ctx, l.f, max)
}

func (l localFile) Read(p []byte) (int, error) { return l.f.Read(p) }
func (l localFile) RealPath() (string, error)  { return safefile.RealPath(l.f) }
func (l localFile) Close() error               { return l.f.Close() }
