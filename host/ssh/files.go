package ssh

import (
	"bytes"
	"context"
	"fmt"
	"io"
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

// oneShot is the largest read asked for in one answer ("open"); a read
// without a cap, or with a larger one, goes in chunks ("fopen", "fread"),
// so no answer is ever larger than a chunk and a file is held whole only
// by a caller that asks for it whole (ReadAll).
const oneShot = 1 << 20

// Open opens the file there by safefile's rules. A small capped read is
// done at once and served from memory; anything else is read there in
// chunks as the caller reads (a session's transcript is scanned, not
// held).
func (h *Host) Open(ctx context.Context, path string, max int64) (host.File, fs.FileInfo, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if max > 0 && max <= oneShot {
		resp, err := h.call(ctx, request{Op: "open", Path: path, Max: max})
		if err != nil {
			return nil, nil, err
		}
		return &memFile{Reader: bytes.NewReader(resp.Data), data: resp.Data, real: resp.S}, *resp.Info, nil
	}
	resp, err := h.call(ctx, request{Op: "fopen", Path: path, Max: max})
	if err != nil {
		return nil, nil, err
	}
	return &chunkFile{h: h, handle: resp.N, real: resp.S}, *resp.Info, nil
}

func (h *Host) ReadFile(ctx context.Context, path string, max int64) ([]byte, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if max > 0 && max <= oneShot {
		resp, err := h.call(ctx, request{Op: "open", Path: path, Max: max})
		return resp.Data, err
	}
	f, _, err := h.Open(ctx, path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll(ctx, max)
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

// chunkFile is a file open there, read a chunk at a time.
type chunkFile struct {
	h      *Host
	handle int64
	real   string
	buf    []byte
	eof    bool
}

// fill reads the next chunk there, when the last is used up.
func (f *chunkFile) fill(ctx context.Context) error {
	if len(f.buf) > 0 || f.eof {
		return nil
	}
	resp, err := f.h.call(ctx, request{Op: "fread", Handle: f.handle, Max: maxChunk})
	if err != nil {
		return err
	}
	f.buf, f.eof = resp.Data, len(resp.Data) == 0
	return nil
}

// Read is bounded by callTimeout a chunk, and by its caller
// (safefile.Within) as a whole.
func (f *chunkFile) Read(p []byte) (int, error) {
	if err := f.fill(context.Background()); err != nil {
		return 0, err
	}
	if f.eof {
		return 0, io.EOF
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

func (f *chunkFile) ReadAll(ctx context.Context, max int64) ([]byte, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var out []byte
	for {
		if err := f.fill(ctx); err != nil {
			return nil, err
		}
		if f.eof {
			return out, nil
		}
		if max > 0 && int64(len(out)+len(f.buf)) > max {
			return nil, fmt.Errorf("over %d bytes: %w", max, host.ErrTooBig)
		}
		out = append(out, f.buf...)
		f.buf = nil
	}
}

func (f *chunkFile) RealPath() (string, error) {
	if f.real == "" {
		return "", fmt.Errorf("the host could not tell: %w", errUnsupported)
	}
	return f.real, nil
}

// Close closes it there; an agent session that ended closed it already.
func (f *chunkFile) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := f.h.call(ctx, request{Op: "fclose", Handle: f.handle})
	return err
}

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
