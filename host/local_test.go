package host

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The local host reads by safefile's rules: a FIFO (or a link to one) is
// refused at once, never waited on; a file over the cap is refused; the
// opened file tells where it really is.
func TestLocalReadRules(t *testing.T) {
	ctx, h := context.Background(), Local{}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pipe, file := filepath.Join(dir, "pipe"), filepath.Join(dir, "f")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(pipe, filepath.Join(dir, "to-pipe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, filepath.Join(dir, "to-f")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{pipe, filepath.Join(dir, "to-pipe")} {
		if _, _, err := h.Open(ctx, p, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s): %v, want ErrNotRegular", p, err)
		}
		if _, err := h.ReadFile(ctx, p, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v, want ErrNotRegular", p, err)
		}
	}
	if _, err := h.ReadFile(ctx, file, 4); !errors.Is(err, ErrTooBig) {
		t.Errorf("ReadFile over the cap: %v, want ErrTooBig", err)
	}
	if _, _, err := h.Open(ctx, file, 4); !errors.Is(err, ErrTooBig) {
		t.Errorf("Open over the cap: %v, want ErrTooBig", err)
	}
	if _, err := h.ReadDir(ctx, file); !errors.Is(err, ErrNotDir) {
		t.Errorf("ReadDir of a file: %v, want ErrNotDir", err)
	}
	f, fi, err := h.Open(ctx, filepath.Join(dir, "to-f"), 5)
	if err != nil || fi.Size() != 5 {
		t.Fatalf("Open = %v, %v", fi, err)
	}
	defer f.Close()
	if real, err := f.RealPath(); err != nil && !errors.Is(err, errors.ErrUnsupported) || err == nil && real != file {
		t.Errorf("RealPath = %q, %v; want %q", real, err, file)
	}
	if b, err := f.ReadAll(ctx, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadAll = %q, %v", b, err)
	}
	if fi, err := h.Lstat(ctx, filepath.Join(dir, "to-f")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat of a link = %v, %v", fi, err)
	}
	if fi, err := h.Stat(ctx, filepath.Join(dir, "to-f")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Stat through a link = %v, %v", fi, err)
	}
	if got, err := h.ResolveLinks(ctx, filepath.Join(dir, "to-f")); err != nil || got != file {
		t.Errorf("ResolveLinks = %q, %v; want %q", got, err, file)
	}
}

// Writes: a folder made, a temporary file written and renamed into
// place, removed.
func TestLocalWrites(t *testing.T) {
	ctx, h := context.Background(), Local{}
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := h.MkdirAll(ctx, dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w, err := h.CreateTemp(ctx, dir, ".part-*")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, "data"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(w.Name()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("temporary file: %v, %v; want mode 0600", fi, err)
	}
	final := filepath.Join(dir, "f")
	if err := h.Rename(ctx, w.Name(), final); err != nil {
		t.Fatal(err)
	}
	if b, err := h.ReadFile(ctx, final, 0); err != nil || string(b) != "data" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if err := h.Remove(ctx, final); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Stat(ctx, final); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("after Remove: %v", err)
	}
	t.Setenv("UNTETHER_HOST_TEST", "x")
	if h.Getenv("UNTETHER_HOST_TEST") != "x" {
		t.Error("Getenv does not read the bot's environment")
	}
}
