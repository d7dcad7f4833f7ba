package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

// With os.Open, each of these would block until a writer came (or, for
// /dev/ptmx, hand out a terminal): they are refused at once.
func TestBlockingFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo(t, filepath.Join(dir, "pipe"))
	if err := os.Symlink(filepath.Join(dir, "pipe"), filepath.Join(dir, "link-to-pipe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/ptmx", filepath.Join(dir, "ptmx")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"pipe", "link-to-pipe", "ptmx"} {
		p := filepath.Join(dir, name)
		if _, err := ReadFile(ctx, p, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): err = %v, want ErrNotRegular", name, err)
		}
		if f, _, err := Open(p, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s): err = %v, want ErrNotRegular", name, err)
			if f != nil {
				f.Close()
			}
		}
		if _, err := ReadDir(ctx, p); err == nil {
			t.Errorf("ReadDir(%s): no error", name)
		}
	}
}

// A file swapped for a FIFO after its path was looked at: the open itself
// must not wait, and the opened descriptor decides.
func TestOpenChecksTheOpenedFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	fifo(t, p)
	// Skip Open's look at the path: open the FIFO as Open does, then see
	// that the descriptor check refuses it.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("a non-blocking open of a FIFO: %v", err)
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil || fi.Mode().IsRegular() {
		t.Fatalf("fstat of the FIFO: %v %v", fi, err)
	}
}

func TestReadFileCapsAndReads(t *testing.T) {
	dir, ctx := t.TempDir(), context.Background()
	p := filepath.Join(dir, "a.md")
	write(t, p, "hello")
	if b, err := ReadFile(ctx, p, 5); err != nil || string(b) != "hello" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := ReadFile(ctx, p, 4); !errors.Is(err, ErrTooBig) {
		t.Fatalf("over the cap: err = %v, want ErrTooBig", err)
	}
	if _, err := ReadFile(ctx, filepath.Join(dir, "none"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: err = %v", err)
	}
	if _, err := ReadFile(ctx, dir, 4); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("folder: err = %v", err)
	}
	write(t, filepath.Join(dir, "b"), "")
	entries, err := ReadDir(ctx, dir)
	if err != nil || len(entries) != 2 || entries[0].Name() != "a.md" || entries[1].Name() != "b" {
		t.Fatalf("ReadDir = %v, %v", entries, err)
	}
	if _, err := ReadDir(ctx, p); !errors.Is(err, ErrNotDir) {
		t.Fatalf("ReadDir of a file: err = %v, want ErrNotDir", err)
	}
}

// A read that does not come back is not waited for past the deadline, and
// a read without one gets DefaultTimeout.
func TestWithinReturnsAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		start := time.Now()
		_, err := Within(context.Background(), func() (int, error) { <-release; return 1, nil })
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != DefaultTimeout {
			t.Fatalf("err = %v after %v, want the deadline after %v", err, time.Since(start), DefaultTimeout)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if _, err := Within(ctx, func() (int, error) { <-release; return 1, nil }); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Fatalf("err = %v after %v, want the caller's deadline", err, time.Since(start))
		}
	})
}

func TestRealPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "real")
	write(t, p, "x")
	if err := os.Symlink(p, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	f, _, err := Open(filepath.Join(dir, "link"), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := RealPath(f)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("RealPath is not known on this system")
	}
	if err != nil || got != p {
		t.Fatalf("RealPath = %q, %v; want %q", got, err, p)
	}
}
