// Package host is the machine Claude works on, behind one interface: the
// processes the bot starts there (Claude Code, git), the files it looks at
// and writes there (the path rule, send_file and /get, uploads, the git
// index copy), and the CPU time of a process tree (the stall watchdog).
// Everything the bot does to that machine goes through a Host, so the
// machine can be another one (OpenSSH, issue 24) without its callers
// changing. Local is this machine, the one implementation today.
//
// It knows neither Telegram nor Claude Code; it imports only safefile
// (Local's way of reading a planted file).
package host

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"strconv"
	"syscall"
	"time"

	"github.com/untether/untether/safefile"
)

// Host is one machine. It gives only what the bot's callers need; each
// path is a path on that machine, each pid a process there.
type Host interface {
	Processes
	Files
	// Getenv is the value of key in the environment the host's processes
	// start from ("" when unset): the path rule expands "~" with its HOME
	// and finds git's config through it.
	Getenv(key string) string
}

// Processes are what the bot runs on a host and how it watches them.
type Processes interface {
	// Start starts c in a process group of its own. When ctx ends before
	// the process does, the whole group is killed (SIGKILL), as
	// exec.CommandContext does; a caller that ends the process itself
	// passes a context that does not end (context.WithoutCancel).
	Start(ctx context.Context, c Cmd) (Process, error)
	// LookPath finds the program name as the host's PATH does; a name
	// holding a "/" is checked as it is.
	LookPath(ctx context.Context, name string) (string, error)
	// Descendants lists the processes below pid now (its children, theirs…),
	// those in sessions or groups of their own included.
	Descendants(ctx context.Context, pid int) ([]int, error)
	// Kill sends sig to each of pids; processes already gone are skipped.
	Kill(ctx context.Context, pids []int, sig syscall.Signal) error
	// TreeCPU is the CPU time pid and every process below it have used so
	// far (user and system, children they reaped included). An error
	// means pid is gone, or the host cannot tell.
	TreeCPU(ctx context.Context, pid int) (time.Duration, error)
}

// Files are the file operations the bot does on a host. Reads follow
// package safefile's rules wherever the host is: a FIFO, device or folder
// where a regular file is expected is refused without being waited on
// (ErrNotRegular), a file over the caller's cap is refused (ErrTooBig),
// and a read is bounded by ctx's deadline or safefile.DefaultTimeout.
type Files interface {
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	Lstat(ctx context.Context, path string) (fs.FileInfo, error)
	Readlink(ctx context.Context, path string) (string, error)
	// ResolveLinks is path with every link followed the way the host's
	// kernel walks it (see WalkLinks, which an implementation may use).
	ResolveLinks(ctx context.Context, path string) (string, error)

	// Open opens path for reading when it is a regular file of at most
	// max bytes (max ≤ 0: any size), decided on the opened file
	// (safefile.Open).
	Open(ctx context.Context, path string, max int64) (File, fs.FileInfo, error)
	// ReadFile reads the whole regular file path, at most max bytes
	// (safefile.ReadFile).
	ReadFile(ctx context.Context, path string, max int64) ([]byte, error)
	// ReadDir lists the folder path, sorted by name (safefile.ReadDir).
	ReadDir(ctx context.Context, path string) ([]fs.DirEntry, error)

	// MkdirAll makes the folder path and the ones above it, with perm.
	MkdirAll(ctx context.Context, path string, perm fs.FileMode) error
	// CreateTemp creates a new file (mode 0600) in dir, or in the host's
	// folder for temporary files when dir is "", named by pattern as
	// os.CreateTemp names it. The caller writes, closes and removes it.
	CreateTemp(ctx context.Context, dir, pattern string) (Writer, error)
	// Rename moves oldpath to newpath, replacing what is there.
	Rename(ctx context.Context, oldpath, newpath string) error
	// Remove removes the file or empty folder path.
	Remove(ctx context.Context, path string) error
}

// Cmd is a process to start.
type Cmd struct {
	// Path is the program: a path, or a name looked up in the host's PATH.
	Path string
	// Args are the arguments after the program's name.
	Args []string
	// Env is the whole environment; Dir the working directory ("": the
	// host's default).
	Env []string
	Dir string
	// Stdin, Stdout and Stderr are what the process reads and writes, as
	// in exec.Cmd: an *os.File is handed to the process as it is (the
	// runner's pipes, one-shot mode's terminal), anything else is copied.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// WaitDelay bounds how long Wait waits, once the process has exited or
	// ctx has ended, for the copying of its output (a helper it started
	// may hold the pipes); as exec.Cmd.WaitDelay.
	WaitDelay time.Duration
}

// Process is a started process, leading its own process group.
type Process interface {
	// Pid is the process id on its host.
	Pid() int
	// Signal sends sig to the process's group: the process and every
	// process it started that stayed in the group. A group that is gone
	// is syscall.ESRCH.
	Signal(sig syscall.Signal) error
	// Wait waits for the process to exit. An exit status other than 0 is
	// not an error (see Exit); the error is a failure to wait, or of the
	// copying of its output, or ctx's error when the host killed it for ctx.
	Wait() (Exit, error)
}

// Exit is how a process ended.
type Exit struct {
	// Code is the exit status; -1 when it was killed by a signal or is
	// not known.
	Code int
	// Signal names the signal that killed it ("killed"), if one did.
	Signal string
}

// String says it as exec.ExitError does: "exit status 1", "signal: killed".
func (e Exit) String() string {
	if e.Signal != "" {
		return "signal: " + e.Signal
	}
	return "exit status " + strconv.Itoa(e.Code)
}

// File is a regular file opened for reading on a host.
type File interface {
	// Read reads on from where the last read stopped (io.Reader), for a
	// caller that scans a file it need not hold whole; it is bounded by
	// the caller (safefile.Within).
	io.Reader
	// ReadAll reads the rest of the file, at most max bytes (a file that
	// grows past max while read is ErrTooBig; max ≤ 0: any size), within
	// ctx's deadline or safefile.DefaultTimeout.
	ReadAll(ctx context.Context, max int64) ([]byte, error)
	// RealPath is where the opened file is, as the host's kernel knows it:
	// the path to check when the name opened may have changed since its
	// check. errors.ErrUnsupported when the host cannot tell.
	RealPath() (string, error)
	Close() error
}

// Writer is a new file being written on a host (an *os.File locally).
type Writer interface {
	io.WriteCloser
	// Name is the file's path on the host.
	Name() string
}

// The refusals of reads, the same values as package safefile's, so
// errors.Is answers alike whichever package a caller names.
var (
	ErrNotRegular = safefile.ErrNotRegular
	ErrTooBig     = safefile.ErrTooBig
	ErrNotDir     = safefile.ErrNotDir
)

// ErrUnreachable is wrapped by every error of a host that could not be
// reached at all (no connection, a refused host key, a login refused), as
// opposed to the operation failing there: the bot then keeps the chat's
// message for a retry rather than report Claude failing.
var ErrUnreachable = errors.New("host unreachable")

// Unreachable is a host that could not be reached, with the reason in the
// words of what tried (ssh's last line, say), which a chat can show as it
// is. errors.Is(err, ErrUnreachable) holds for it.
type Unreachable struct{ Reason string }

func (e *Unreachable) Error() string        { return e.Reason + ": " + ErrUnreachable.Error() }
func (e *Unreachable) Is(target error) bool { return target == ErrUnreachable }

// IsLocal says whether h is this machine (nil is): only then may a
// caller's default be the bot's own environment. A process on another
// machine never gets the bot's environment (its token, its HOME).
func IsLocal(h Host) bool {
	switch h.(type) {
	case nil, Local, *Local:
		return true
	}
	return false
}

// Or is h, or Local when h is nil: the zero value of a caller's Host
// field means this machine.
func Or(h Host) Host {
	if h == nil {
		return Local{}
	}
	return h
}
