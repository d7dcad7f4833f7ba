package filesend

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/human"
	"github.com/untether/untether/scope"
)

// request is one line from `untether mcp`; Result is the line back.
type request struct {
	Secret  string `json:"secret"`
	Path    string `json:"path"`
	Caption string `json:"caption,omitempty"`
}

// Result is the bot's answer: whether the file was delivered, and the text
// Claude gets as the tool's result.
type Result struct {
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

// readWait bounds reading a request: the client writes it at once.
const readWait = 10 * time.Second

func reply(conn net.Conn, r Result) {
	_ = conn.SetWriteDeadline(time.Now().Add(readWait))
	data, _ := json.Marshal(r)
	_, _ = conn.Write(append(data, '\n'))
}

// handle answers one connection: one request, one result. The request is
// never logged (it carries the secret).
func (s *Server) handle(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(readWait))
	line, err := bufio.NewReader(io.LimitReader(conn, maxRequest)).ReadBytes('\n')
	if err != nil {
		s.log.Warn("send_file: unreadable request", "err", err)
		return
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		reply(conn, Result{Text: "Not sent: the request could not be read."})
		return
	}
	sess, ok := s.session(req.Secret)
	if !ok {
		// A process whose session ended, or someone guessing.
		s.log.Warn("send_file: a request with an unknown secret was refused")
		reply(conn, Result{Text: "Not sent: this Claude session may no longer send files (it was closed)."})
		return
	}
	f, err := Read(ctx, sess.Rule, req.Path, s.opts.MaxSize)
	if err != nil {
		s.log.Info("send_file refused", "session_key", sess.Key, "path", req.Path, "err", err)
		reply(conn, Result{Text: "Not sent: " + err.Error()})
		return
	}
	f.Caption = req.Caption
	if err := s.gather(ctx, sess.Key, f); err != nil {
		s.log.Warn("send_file not delivered", "session_key", sess.Key, "path", f.Path, "err", err)
		reply(conn, Result{Text: "Not sent: " + err.Error()})
		return
	}
	s.log.Info("send_file delivered", "session_key", sess.Key, "path", f.Path, "bytes", len(f.Data))
	reply(conn, Result{OK: true, Text: "Delivered " + f.Path + " to the user's Telegram chat."})
}

// Refusal says why a path was not sent.
type Refusal int

const (
	NoPath Refusal = iota + 1
	Outside
	Private
	Missing
	Folder
	NotRegular
	Empty
	TooBig
	Unreadable
)

// PathError is a path that was not sent: Path as resolved (links
// followed), Kind why. Its text is the reason, fit for Claude and users.
type PathError struct {
	Path string
	Kind Refusal
	msg  string
}

func (e *PathError) Error() string { return e.msg }

func refuse(path string, kind Refusal, format string, args ...any) (File, error) {
	return File{}, &PathError{Path: path, Kind: kind, msg: fmt.Sprintf(format, args...)}
}

// afterCheck, when set (tests), runs between the check of a path and its
// open: where a swap would have to happen.
var afterCheck func(path string)

// Read checks path with rule (relative paths are taken from the rule's
// working directory) and reads the file, of at most maxSize bytes (0: no
// limit), within ctx's deadline (safefile.DefaultTimeout without one, locally).
// The file read is the file checked: it is opened without blocking and
// checked again as opened (a regular file, and, where the system tells,
// inside by where it really is), so a path swapped after its check for a
// FIFO or a link out is refused. The file is read on the rule's host,
// where its path was checked. Every refusal is a *PathError.
func Read(ctx context.Context, rule scope.Rule, path string, maxSize int64) (File, error) {
	if path == "" {
		return refuse(path, NoPath, "no path was given")
	}
	v := rule.Check(path)
	if f, err := refusePlace(v); err != nil {
		return f, err
	}
	h := rule.On()
	info, err := h.Stat(ctx, v.Path)
	if f, err := refuseInfo(v.Path, info, err, maxSize); err != nil {
		return f, err
	}
	if afterCheck != nil {
		afterCheck(v.Path)
	}
	fh, info, err := h.Open(ctx, v.Path, maxSize)
	if f, err := refuseInfo(v.Path, info, err, maxSize); err != nil {
		return f, err
	}
	defer fh.Close()
	if real, err := fh.RealPath(); err == nil {
		if f, err := refusePlace(rule.Check(real)); err != nil {
			return f, err
		}
	}
	limit := maxSize
	if limit <= 0 {
		limit = info.Size()
	}
	data, err := fh.ReadAll(ctx, limit)
	switch {
	case errors.Is(err, host.ErrTooBig):
		return refuse(v.Path, TooBig, "%s grew past %s while it was read", v.Path, human.Bytes(limit))
	case err != nil:
		return refuse(v.Path, Unreadable, "reading %s: %v", v.Path, err)
	case len(data) == 0:
		return refuse(v.Path, Empty, "%s is empty", v.Path)
	}
	return File{Path: v.Path, Name: filepath.Base(v.Path), Data: data}, nil
}

// refusePlace refuses a path the rule does not call inside.
func refusePlace(v scope.Verdict) (File, error) {
	switch {
	case v.Forbidden:
		return refuse(v.Path, Private, "%s is one of the bot's private files; nothing was sent", v.Path)
	case !v.Inside:
		return refuse(v.Path, Outside, "%s is outside this session's project (its working directory, the chat's upload folder "+
			"and the directories the owner listed); only files inside may be sent, and nothing was sent", v.Path)
	}
	return File{}, nil
}

// refuseInfo refuses what a stat (of the path, or of the opened file)
// tells is no file to send.
func refuseInfo(path string, info fs.FileInfo, err error, maxSize int64) (File, error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refuse(path, Missing, "%s does not exist", path)
	case info != nil && info.IsDir():
		return refuse(path, Folder, "%s is a folder: send its files one by one, or an archive of it", path)
	case errors.Is(err, host.ErrNotRegular) || err == nil && !info.Mode().IsRegular():
		return refuse(path, NotRegular, "%s is not a regular file", path)
	case errors.Is(err, host.ErrTooBig) || err == nil && maxSize > 0 && info.Size() > maxSize:
		return refuse(path, TooBig, "%s is %s; the most that can be sent is %s", path, human.Bytes(info.Size()), human.Bytes(maxSize))
	case err != nil:
		return refuse(path, Unreadable, "%s: %v", path, unwrapPath(err))
	case info.Size() == 0:
		return refuse(path, Empty, "%s is empty", path)
	}
	return File{}, nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// batch is the files of one session gathered for one delivery.
type batch struct {
	files []File
	done  []chan error
}

// gather adds f to the session's batch, delivered Gather after its first
// file, and waits for f's result.
func (s *Server) gather(ctx context.Context, key string, f File) error {
	done := make(chan error, 1)
	s.mu.Lock()
	b := s.batches[key]
	if b == nil {
		b = &batch{}
		s.batches[key] = b
		time.AfterFunc(s.opts.Gather, func() { s.flush(ctx, key, b) })
	}
	b.files = append(b.files, f)
	b.done = append(b.done, done)
	s.mu.Unlock()
	return <-done
}

// flush delivers a batch and answers each of its files.
func (s *Server) flush(ctx context.Context, key string, b *batch) {
	s.mu.Lock()
	if s.batches[key] == b {
		delete(s.batches, key)
	}
	deliver := s.deliver
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	errs := deliver(ctx, key, b.files)
	for i, done := range b.done {
		var err error
		if i < len(errs) {
			err = errs[i]
		} else {
			err = errors.New("the bot did not report on this file")
		}
		done <- err
	}
}
