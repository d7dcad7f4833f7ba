package ssh

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/untether/untether/host"
)

// AgentMain is the agent's side, run as "untether host-agent [exec]" on the
// machine: with no argument it answers requests on stdin until it ends;
// with "exec" it starts the process its first stdin line describes and
// relays it. It returns the exit status.
func AgentMain(args []string) int {
	if len(args) > 0 && args[0] == "exec" {
		return agentExec()
	}
	if err := serve(context.Background(), &agent{files: map[int64]host.File{}}, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent:", err)
		return 1
	}
	return 0
}

// agent is the state of one agent session: the files the bot opened for
// reading in chunks (fopen, fread, fclose). They close when it ends.
type agent struct {
	h     host.Local
	files map[int64]host.File
	next  int64
}

// maxOpenFiles bounds the files a bot keeps open at once through one
// agent; a bot closes each when done.
const maxOpenFiles = 64

// maxChunk is the most one fread answers.
const maxChunk = 1 << 20

// serve answers requests, one JSON line each, in order.
func serve(ctx context.Context, a *agent, in io.Reader, out io.Writer) error {
	defer func() {
		for _, f := range a.files {
			_ = f.Close()
		}
	}()
	dec := json.NewDecoder(bufio.NewReader(in))
	enc := json.NewEncoder(out)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a request: %w", err)
		}
		if err := enc.Encode(a.answer(ctx, req)); err != nil {
			return fmt.Errorf("writing an answer: %w", err)
		}
	}
}

// answer runs one request with host.Local: the machine's answer is this
// machine's code's answer.
func (a *agent) answer(ctx context.Context, r request) (resp response) {
	h := a.h
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(r.Timeout)*time.Millisecond)
		defer cancel()
	}
	var err error
	switch r.Op {
	case "hello":
		resp.N = protoVersion
	case "stat", "lstat":
		var fi fs.FileInfo
		if r.Op == "stat" {
			fi, err = h.Stat(ctx, r.Path)
		} else {
			fi, err = h.Lstat(ctx, r.Path)
		}
		if err == nil {
			info := toInfo(fi)
			resp.Info = &info
		}
	case "fopen":
		err = a.fopen(ctx, r, &resp)
	case "fread":
		err = a.fread(r, &resp)
	case "fclose":
		if f, ok := a.files[r.Handle]; ok {
			delete(a.files, r.Handle)
			err = f.Close()
		}
	case "readlink":
		resp.S, err = h.Readlink(ctx, r.Path)
	case "resolve":
		resp.S, err = h.ResolveLinks(ctx, r.Path)
	case "open":
		err = readOpen(ctx, h, r, &resp)
	case "readdir":
		var list []fs.DirEntry
		list, err = h.ReadDir(ctx, r.Path)
		if len(list) > maxEntries {
			list, err = nil, fmt.Errorf("%s holds over %d entries: %w", r.Path, maxEntries, host.ErrTooBig)
		}
		for _, e := range list {
			fi, ierr := e.Info()
			if ierr != nil {
				resp.Entries = append(resp.Entries, fileInfo{N: e.Name(), M: e.Type()})
				continue
			}
			resp.Entries = append(resp.Entries, toInfo(fi))
		}
	case "mkdirall":
		err = h.MkdirAll(ctx, r.Path, fs.FileMode(r.Perm))
	case "createtemp":
		var w host.Writer
		if w, err = h.CreateTemp(ctx, r.Path, r.Path2); err == nil {
			resp.S = w.Name()
			err = w.Close()
		}
	case "writefile":
		// Only a file CreateTemp made (it exists): O_TRUNC without O_CREATE.
		var f *os.File
		if f, err = os.OpenFile(r.Path, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0); err == nil {
			_, err = f.Write(r.Data)
			err = errors.Join(err, f.Close())
		}
	case "rename":
		err = h.Rename(ctx, r.Path, r.Path2)
	case "remove":
		err = h.Remove(ctx, r.Path)
	case "getenv":
		resp.S = h.Getenv(r.Path)
	case "lookpath":
		resp.S, err = h.LookPath(ctx, r.Path)
	case "descendants":
		resp.Pids, err = h.Descendants(ctx, r.Pid)
	case "kill":
		err = h.Kill(ctx, r.Pids, syscall.Signal(r.Sig))
	case "killgroup":
		err = syscall.Kill(-r.Pid, syscall.Signal(r.Sig))
	case "treecpu":
		var d time.Duration
		d, err = h.TreeCPU(ctx, r.Pid)
		resp.N = int64(d)
	case "ident":
		resp.S, err = fileIdent(r.Path)
	case "memtotal":
		resp.N, err = h.MemTotal(ctx)
	case "numcpu":
		var n int
		n, err = h.NumCPU(ctx)
		resp.N = int64(n)
	default:
		err = fmt.Errorf("unknown request %q (the agent speaks protocol %d)", r.Op, protoVersion)
	}
	if err != nil {
		resp.Err, resp.Kind = err.Error(), errKind(err)
	}
	return resp
}

// fopen opens a file by safefile's rules for reads in chunks: its handle
// is resp.N.
func (a *agent) fopen(ctx context.Context, r request, resp *response) error {
	if len(a.files) >= maxOpenFiles {
		return fmt.Errorf("%d files open through the agent already", maxOpenFiles)
	}
	f, fi, err := a.h.Open(ctx, r.Path, r.Max)
	if err != nil {
		return err
	}
	info := toInfo(fi)
	resp.Info = &info
	if resp.S, err = f.RealPath(); err != nil {
		resp.S = ""
	}
	a.next++
	a.files[a.next] = f
	resp.N = a.next
	return nil
}

// fread reads the next chunk (at most r.Max, at most maxChunk) of an
// open file; an empty answer is the end of the file.
func (a *agent) fread(r request, resp *response) error {
	f, ok := a.files[r.Handle]
	if !ok {
		return fmt.Errorf("no open file %d", r.Handle)
	}
	buf := make([]byte, min(max(r.Max, 1), maxChunk))
	n, err := io.ReadFull(f, buf)
	resp.Data = buf[:n]
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return nil
	}
	return err
}

// fileIdent is what tells a file from a replacement or an edit of it:
// its device, inode, size, and change time (which nobody sets at will).
func fileIdent(path string) (string, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return "", &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fmt.Sprintf("%d:%d:%d:%d.%d:%o", st.Dev, st.Ino, st.Size, ctime(&st).Sec, ctime(&st).Nsec, st.Mode), nil
}

// readOpen opens and reads a file by safefile's rules, and says where the
// opened file is.
func readOpen(ctx context.Context, h host.Local, r request, resp *response) error {
	f, fi, err := h.Open(ctx, r.Path, r.Max)
	if err != nil {
		return err
	}
	defer f.Close()
	info := toInfo(fi)
	resp.Info = &info
	if resp.S, err = f.RealPath(); err != nil {
		resp.S = ""
	}
	resp.Data, err = f.ReadAll(ctx, r.Max)
	return err
}

// agentExec starts the process described on stdin's first line in a
// session (and so a process group) of its own, says its pid, relays its
// output, and exits with its status: 128+n when signal n killed it. When
// the bot's side goes away (its output cannot be written), the process's
// group is ended: nobody would read it.
func agentExec() int {
	line, err := readLine(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent exec:", err)
		return 125
	}
	var spec execSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent exec: the process spec:", err)
		return 125
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	// The machine's own login environment, with the bot's values over it:
	// the bot sends only what it sets (the [claude.env], git's safety
	// variables), never its own environment.
	cmd.Env = append(os.Environ(), spec.Env...)
	cmd.Dir, cmd.Stdin = spec.Dir, os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Output goes through pipes of the agent's, never sshd's own: a
	// process the program started that keeps them open then holds only
	// these, and the session ends when the agent does.
	outR, outW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent exec:", err)
		return 125
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent exec:", err)
		return 125
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "untether host-agent exec:", err)
		return 127
	}
	_, _ = outW.Close(), errW.Close()
	pid := cmd.Process.Pid
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, err := io.WriteString(os.Stdout, pidLine+strconv.Itoa(pid)+"\n")
		if err == nil {
			_, err = io.Copy(os.Stdout, outR)
		}
		if err != nil {
			_ = syscall.Kill(-pid, syscall.SIGTERM)
			_, _ = io.Copy(io.Discard, outR)
		}
	}()
	errCopied := make(chan struct{})
	go func() {
		defer close(errCopied)
		_, _ = io.Copy(os.Stderr, errR)
	}()
	err = cmd.Wait()
	// Once it exited, its output is relayed until the pipes close, or for
	// WaitDelay when the bot gave one (as exec.Cmd does here).
	late := context.Background()
	if spec.WaitDelay > 0 {
		var cancel context.CancelFunc
		late, cancel = context.WithTimeout(late, time.Duration(spec.WaitDelay)*time.Millisecond)
		defer cancel()
	}
	for _, ch := range []chan struct{}{copied, errCopied} {
		select {
		case <-ch:
		case <-late.Done():
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 125
	}
	return 0
}

// readLine reads one line a byte at a time: what follows it is the
// process's own stdin, which must not be read ahead.
func readLine(f *os.File) ([]byte, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 1<<20 {
		n, err := f.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				return line, nil
			}
			line = append(line, b[0])
		}
		if err != nil {
			return nil, fmt.Errorf("reading the process spec: %w", err)
		}
	}
	return nil, errors.New("the process spec is too long")
}
