package ssh

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/safefile"
)

// The file operations are the agent's host.Local ones, run there. A read
// without a deadline gets safefile's, as a local one does.

func (h *Host) info(ctx context.Context, op, path string) (fs.FileInfo, error) {
	resp, err := h.call(ctx, request{Op: op, Path: path})
	if err != nil {
		return nil, err
	}
	return *resp.Info, nil
}

func (h *Host) Stat(ctx context.Context, path string) (fs.FileInfo, error) {
	return h.info(ctx, "stat", path)
}

func (h *Host) Lstat(ctx context.Context, path string) (fs.FileInfo, error) {
	return h.info(ctx, "lstat", path)
}

func (h *Host) Readlink(ctx context.Context, path string) (string, error) {
	resp, err := h.call(ctx, request{Op: "readlink", Path: path})
	return resp.S, err
}

// ResolveLinks walks the links there in one request (host.WalkLinks run
// by the agent), not one round trip a path part.
func (h *Host) ResolveLinks(ctx context.Context, path string) (string, error) {
	resp, err := h.call(ctx, request{Op: "resolve", Path: path})
	if err != nil {
		return "", err
	}
	return resp.S, nil
}

// bounded gives a read safefile's time limit when ctx has none.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, safefile.DefaultTimeout)
}

// Open reads the whole file there (at most max bytes) by safefile's
// rules; the File serves it from memory. The bot's reads of a host's
// files are whole-file reads of capped size (send_file, /get, Claude
// Code's stores), so nothing is lost by reading at once.
func (h *Host) Open(ctx context.Context, path string, max int64) (host.File, fs.FileInfo, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	resp, err := h.call(ctx, request{Op: "open", Path: path, Max: max})
	if err != nil {
		return nil, nil, err
	}
	return &memFile{Reader: bytes.NewReader(resp.Data), data: resp.Data, real: resp.S}, *resp.Info, nil
}

func (h *Host) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	resp, err := h.call(ctx, request{Op: "open", Path: path, Max: max})
	return resp.Data, err
}

func (h *Host) ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	resp, err := h.call(ctx, request{Op: "readdir", Path: path})
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(resp.Entries))
	for i, e := range resp.Entries {
		out[i] = e
	}
	return out, nil
}

func (h *Host) MkdirAll(ctx context.Context, path string, perm fs.FileMode) error {
	_, err := h.call(ctx, request{Op: "mkdirall", Path: path, Perm: uint32(perm)})
	return err
}

// CreateTemp makes the file there at once (its name is known), keeps what
// is written, and writes it there on Close.
func (h *Host) CreateTemp(ctx context.Context, dir, pattern string) (host.Writer, error) {
	resp, err := h.call(ctx, request{Op: "createtemp", Path: dir, Path2: pattern})
	if err != nil {
		return nil, err
	}
	return &tempWriter{h: h, name: resp.S}, nil
}

func (h *Host) Rename(ctx context.Context, oldpath, newpath string) error {
	_, err := h.call(ctx, request{Op: "rename", Path: oldpath, Path2: newpath})
	return err
}

func (h *Host) Remove(ctx context.Context, path string) error {
	_, err := h.call(ctx, request{Op: "remove", Path: path})
	return err
}

// memFile is a file read there, served from memory.
type memFile struct {
	*bytes.Reader
	data []byte
	real string
}

func (f *memFile) ReadAll(_ context.Context, max int64) ([]byte, error) {
	rest := f.data[int(f.Size())-f.Len():]
	if max > 0 && int64(len(rest)) > max {
		return nil, fmt.Errorf("%d bytes: %w", len(rest), host.ErrTooBig)
	}
	f.Reset(nil)
	return rest, nil
}

func (f *memFile) RealPath() (string, error) {
	if f.real == "" {
		return "", fmt.Errorf("the host could not tell: %w", errUnsupported)
	}
	return f.real, nil
}

func (f *memFile) Close() error { return nil }

// tempWriter is a CreateTemp file being written.
type tempWriter struct {
	h    *Host
	name string
	buf  bytes.Buffer
}

func (w *tempWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *tempWriter) Name() string                { return w.name }

// Close writes the content there; a large upload gets time by its size.
func (w *tempWriter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(w.buf.Len()>>10)*time.Millisecond)
	defer cancel()
	_, err := w.h.call(ctx, request{Op: "writefile", Path: w.name, Data: w.buf.Bytes()})
	return err
}
