// Package ssh is a host.Host on another machine, reached with the system's
// OpenSSH client: the user's ~/.ssh/config, keys, agent and known_hosts
// decide how, and the bot implements no SSH itself.
//
// On the machine, the bot's own binary answers as an agent ("untether
// host-agent"): one long-lived session over a multiplexed connection
// (ControlMaster) takes the file and process-table requests and answers
// them with host.Local's code, so safefile's rules and the link walk run
// there unchanged; each process the bot starts there (Claude, git) is a
// session of its own over the same connection ("host-agent exec"). The
// agent is copied there when missing, when the machine's OS and
// architecture are the bot's (docs/hosts.md).
package ssh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"strings"
	"time"

	"github.com/untether/untether/host"
)

// protoVersion is the agent protocol's version: the agent's file name
// carries the binary's hash, so a bot only ever talks to its own build.
const protoVersion = 1

// request is one call to the agent, a JSON line.
type request struct {
	Op      string `json:"op"`
	Path    string `json:"path,omitempty"`
	Path2   string `json:"path2,omitempty"`
	Max     int64  `json:"max,omitempty"`
	Perm    uint32 `json:"perm,omitempty"`
	Pid     int    `json:"pid,omitempty"`
	Pids    []int  `json:"pids,omitempty"`
	Sig     int    `json:"sig,omitempty"`
	Data    []byte `json:"data,omitempty"`
	Timeout int64  `json:"timeout_ms,omitempty"`
	// Handle is an open file's (fopen's answer's N), for fread and fclose.
	Handle int64 `json:"handle,omitempty"`
}

// response is the agent's answer, a JSON line.
type response struct {
	Err     string     `json:"err,omitempty"`
	Kind    string     `json:"kind,omitempty"` // which sentinel Err wraps
	Info    *fileInfo  `json:"info,omitempty"`
	Entries []fileInfo `json:"entries,omitempty"`
	Data    []byte     `json:"data,omitempty"`
	S       string     `json:"s,omitempty"`
	N       int64      `json:"n,omitempty"`
	Pids    []int      `json:"pids,omitempty"`
}

// execSpec is the first line of an "exec" session: the process to start.
// It travels on stdin, never on the remote command line, where ps would
// show the environment to every user of the machine.
type execSpec struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// WaitDelay (ms) bounds the relaying of the process's output once it
	// exited (something it started may hold it), as host.Cmd's does.
	WaitDelay int64 `json:"wait_delay_ms,omitempty"`
}

// pidLine starts an exec session's output: the process's pid there.
const pidLine = "untether-pid "

// Errors keep their kind across the wire, so errors.Is answers alike on
// both sides.
var kinds = []struct {
	name string
	err  error
}{
	{"notexist", fs.ErrNotExist},
	{"exist", fs.ErrExist},
	{"permission", fs.ErrPermission},
	{"notregular", host.ErrNotRegular},
	{"toobig", host.ErrTooBig},
	{"notdir", host.ErrNotDir},
	{"loop", host.ErrLoop},
	{"notfound", exec.ErrNotFound},
	{"deadline", errors.New("timed out")},
}

func errKind(err error) string {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.name
		}
	}
	return ""
}

func (r response) error() error {
	if r.Err == "" {
		return nil
	}
	for _, k := range kinds {
		if k.name == r.Kind {
			return fmt.Errorf("%s: %w", r.Err, k.err)
		}
	}
	return errors.New(r.Err)
}

// check is the answer's own error, or why it is not an answer to req:
// the agent is not trusted (whatever runs as the host's user can replace
// it), so an answer without what it must carry, or more than was asked
// for, is refused here rather than taken.
func (r response) check(req request) error {
	if err := r.error(); err != nil {
		return err
	}
	switch req.Op {
	case "stat", "lstat", "open":
		if r.Info == nil {
			return fmt.Errorf("the agent's answer to %q has no file info", req.Op)
		}
	}
	if (req.Op == "open" || req.Op == "fread") && req.Max > 0 && int64(len(r.Data)) > req.Max {
		return fmt.Errorf("the agent sent %d bytes, at most %d were asked for: %w", len(r.Data), req.Max, host.ErrTooBig)
	}
	if len(r.Entries) > maxEntries {
		return fmt.Errorf("the agent listed %d entries, at most %d are taken: %w", len(r.Entries), maxEntries, host.ErrTooBig)
	}
	for _, e := range r.Entries {
		// A caller joins the name to the folder's path.
		if e.N == "" || e.N == "." || e.N == ".." || strings.ContainsAny(e.N, "/\x00") {
			return fmt.Errorf("the agent listed an entry named %q", e.N)
		}
	}
	return nil
}

// preCheck refuses a listing with more entries than are taken before it
// is decoded (an entry is an object: at most one "{" each, and a "{" in a
// name only makes the count larger).
func preCheck(req request, line []byte) error {
	if req.Op == "readdir" && bytes.Count(line, []byte("{")) > maxEntries+1 {
		return fmt.Errorf("the agent listed over %d entries: %w", maxEntries, host.ErrTooBig)
	}
	return nil
}

// Bounds on one answer's line, so an agent cannot make the bot hold
// memory without end: a read's own cap (base64 makes 3 bytes 4; a read
// is at most oneShot or a chunk), a folder's listing (at most maxEntries
// entries, counted before they are decoded: an empty entry is 3 bytes on
// the wire and tens in memory), and the rest.
const (
	maxListing = 8 << 20
	maxEntries = 100_000
	maxAnswer  = 1 << 20
)

func answerLimit(req request) int {
	switch req.Op {
	case "open", "fread":
		n := req.Max
		if n <= 0 || n > max(oneShot, maxChunk) {
			n = max(oneShot, maxChunk)
		}
		return int(n/3*4) + maxAnswer
	case "readdir":
		return maxListing
	}
	return maxAnswer
}

// readAnswer reads one line of at most limit bytes.
func readAnswer(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, fmt.Errorf("an answer over %d bytes: %w", limit, host.ErrTooBig)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
}

// fileInfo is an fs.FileInfo on the wire.
type fileInfo struct {
	N string      `json:"name"`
	S int64       `json:"size"`
	M fs.FileMode `json:"mode"`
	T time.Time   `json:"mtime"`
}

func toInfo(fi fs.FileInfo) fileInfo {
	return fileInfo{N: fi.Name(), S: fi.Size(), M: fi.Mode(), T: fi.ModTime()}
}

func (f fileInfo) Name() string               { return f.N }
func (f fileInfo) Size() int64                { return f.S }
func (f fileInfo) Mode() fs.FileMode          { return f.M }
func (f fileInfo) ModTime() time.Time         { return f.T }
func (f fileInfo) IsDir() bool                { return f.M.IsDir() }
func (f fileInfo) Sys() any                   { return nil }
func (f fileInfo) Type() fs.FileMode          { return f.M.Type() }
func (f fileInfo) Info() (fs.FileInfo, error) { return f, nil }
