// Package safefile reads files that someone else may have planted: files
// in a project, Claude Code's stores, paths Claude names. Opening a FIFO
// blocks until a writer comes, opening a device can hang or have effects,
// and a path checked a moment ago may now name something else. So a file
// is opened without blocking (O_NONBLOCK, O_NOCTTY), checked on the opened
// descriptor (fstat: a regular file, within a size cap), and read within a
// time limit. It imports none of the bot's packages.
package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// DefaultTimeout bounds a read whose context has no deadline: a regular
// file on a local disk is read in far less; a hung network mount is not
// waited for.
const DefaultTimeout = 5 * time.Second

var (
	// ErrNotRegular is a path that is not a regular file (a FIFO, a
	// socket, a device, a folder), checked on the opened file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooBig is a file larger than the caller's cap.
	ErrTooBig = errors.New("file too big")
	// ErrNotDir is a path given as a folder that is not one.
	ErrNotDir = errors.New("not a folder")
)

// Open opens path for reading when it is a regular file of at most max
// bytes (max ≤ 0: any size), links followed. The answer is decided on the
// opened descriptor, so a file swapped for a FIFO or a device after a
// check of its path is refused, never waited on. The caller reads and
// closes the file; its size may still change while it is read.
func Open(path string, max int64) (*os.File, fs.FileInfo, error) {
	// A cheap look first: most refusals need no open (and no side effect
	// of opening a device).
	if fi, err := os.Stat(path); err != nil {
		return nil, nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("%s: %w", path, notRegular(fi))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return nil, nil, err
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, fi, fmt.Errorf("%s: %w", path, notRegular(fi))
	case max > 0 && fi.Size() > max:
		f.Close()
		return nil, fi, fmt.Errorf("%s is %d bytes: %w", path, fi.Size(), ErrTooBig)
	}
	return f, fi, nil
}

func notRegular(fi fs.FileInfo) error {
	if fi.IsDir() {
		return fmt.Errorf("a folder: %w", ErrNotRegular)
	}
	return ErrNotRegular
}

// ReadFile reads the whole regular file path, at most max bytes (a file
// that grows past max while read is refused), within ctx's deadline or
// DefaultTimeout. When the time runs out it returns at once; the read
// left behind ends with the file.
func ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	return Within(ctx, func() ([]byte, error) {
		f, _, err := Open(path, max)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readAll(f, path, max)
	})
}

// readAll reads f to its end, refusing more than max bytes (max ≤ 0: any).
func readAll(f *os.File, path string, max int64) ([]byte, error) {
	r := io.Reader(f)
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if max > 0 && int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes: %w", path, max, ErrTooBig)
	}
	return data, nil
}

// ReadDir lists the folder path (links followed), sorted by name, within
// ctx's deadline or DefaultTimeout. Something else in a folder's place
// (a FIFO, a device) is refused without being waited on.
func ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	return Within(ctx, func() ([]fs.DirEntry, error) {
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_DIRECTORY, 0)
		if err != nil {
			if errors.Is(err, syscall.ENOTDIR) {
				return nil, fmt.Errorf("%s: %w", path, ErrNotDir)
			}
			return nil, err
		}
		defer f.Close()
		entries, err := f.ReadDir(-1)
		sortEntries(entries)
		return entries, err
	})
}

// Within runs read on its own goroutine and waits for it until ctx ends
// or DefaultTimeout passes when ctx has no deadline.
func Within[T any](ctx context.Context, read func() (T, error)) (T, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("no answer from the file system: %w", ctx.Err())
	}
}

// ReadHead reads at most the first n bytes of the regular file path, of
// any size, within ctx's deadline or DefaultTimeout.
func ReadHead(ctx context.Context, path string, n int64) ([]byte, error) {
	return Within(ctx, func() ([]byte, error) {
		f, _, err := Open(path, 0)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, n))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		return data, nil
	})
}

// ReadOpen reads the rest of the open file f, at most max bytes (a file
// that grows past max while read is refused with ErrTooBig; max ≤ 0: any
// size), within ctx's deadline or DefaultTimeout.
func ReadOpen(ctx context.Context, f *os.File, max int64) ([]byte, error) {
	return Within(ctx, func() ([]byte, error) { return readAll(f, f.Name(), max) })
}

// Use opens path as Open does (a regular file of at most max bytes) and
// hands it to use, within ctx's deadline or DefaultTimeout; the file is
// closed when use returns.
func Use(ctx context.Context, path string, max int64, use func(f *os.File, fi fs.FileInfo) error) error {
	_, err := Within(ctx, func() (struct{}, error) {
		f, fi, err := Open(path, max)
		if err != nil {
			return struct{}{}, err
		}
		defer f.Close()
		return struct{}{}, use(f, fi)
	})
	return err
}
