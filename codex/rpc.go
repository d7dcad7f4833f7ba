package codex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// message is one JSON-RPC 2.0 message in either direction. Codex 0.171.0
// leaves "jsonrpc" out of what it sends; its own requests (approvals)
// carry ids from 0 up, in a space of their own.
type message struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("codex error %d: %s", e.Code, e.Message) }

// rpc is our side of the connection: requests with ids, notifications,
// and answers to Codex's requests, one line each on its stdin.
type rpc struct {
	wmu sync.Mutex
	w   io.Writer

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan message
	// late has what handles the answer to a request its caller stopped
	// waiting for (callLate), by id: run by the reader as it reads the
	// answer, in order with Codex's other lines.
	late map[int64]func(message)
	gone error // set once the process's stdout ended
}

func newRPC(w io.Writer) *rpc {
	return &rpc{w: w, waiting: map[int64]chan message{}, late: map[int64]func(message){}}
}

func (r *rpc) write(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode %s: %w", m.Method, err)
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if _, err := r.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to codex: %w", err)
	}
	return nil
}

// errUnanswered: a request went (or is going) to Codex, but its answer did
// not come in time: Codex may act on it.
var errUnanswered = errors.New("written, not answered in time")

// call sends a request and waits for its response.
func (r *rpc) call(ctx context.Context, method string, params, result any) error {
	return r.callLate(ctx, method, params, result, nil)
}

// callLate is call for a request Codex may act on once it has it
// (turn/start, turn/steer). The write itself is not bounded (a held
// Codex's link may be down for minutes), ctx is: when ctx ends after the
// request was handed to the writer, the error wraps errUnanswered, and
// late (if not nil) gets what Codex answers once it does (its result, or
// its refusal), or nothing if the process ends first. Only an error without
// errUnanswered means Codex certainly does not have the request.
func (r *rpc) callLate(ctx context.Context, method string, params, result any, late func(json.RawMessage, error)) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	r.mu.Lock()
	if r.gone != nil {
		r.mu.Unlock()
		return r.gone
	}
	r.nextID++
	id := r.nextID
	ch := make(chan message, 1)
	r.waiting[id] = ch
	r.mu.Unlock()
	forget := func() {
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
	}
	wrote := make(chan error, 1)
	go func() {
		wrote <- r.write(message{ID: json.RawMessage(strconv.FormatInt(id, 10)), Method: method, Params: p})
	}()
	select {
	case err := <-wrote:
		if err != nil {
			forget()
			return err
		}
	case <-ctx.Done():
		// Still being written: it may yet reach Codex.
		return r.unanswered(ctx, method, id, ch, late)
	}
	select {
	case <-ctx.Done():
		return r.unanswered(ctx, method, id, ch, late)
	case m, ok := <-ch:
		forget()
		if !ok {
			return fmt.Errorf("%s: %w", method, r.gone)
		}
		return answerErr(method, m, result)
	}
}

// unanswered gives up waiting for the answer to request id, handed to the
// writer; late gets it when it comes: on the reader's goroutine, before
// the lines after it are handled (on one of its own it could run after
// the turn ended and the next began, and give that turn the old one's
// id), or here when it came meanwhile.
func (r *rpc) unanswered(ctx context.Context, method string, id int64, ch chan message, late func(json.RawMessage, error)) error {
	err := fmt.Errorf("%s: %w (%w)", method, errUnanswered, ctx.Err())
	r.mu.Lock()
	delete(r.waiting, id)
	select {
	case m, ok := <-ch: // answered (or the process ended) meanwhile
		r.mu.Unlock()
		if ok && late != nil {
			late(m.Result, answerErr(method, m, nil))
		}
		return err
	default:
	}
	if late != nil && r.gone == nil {
		r.late[id] = func(m message) { late(m.Result, answerErr(method, m, nil)) }
	}
	r.mu.Unlock()
	return err
}

// answerErr is what Codex's answer m to method says: its error, or
// nil with result decoded.
func answerErr(method string, m message, result any) error {
	if m.Error != nil {
		return fmt.Errorf("%s: %w", method, m.Error)
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("decode %s result: %w", method, err)
		}
	}
	return nil
}

func (r *rpc) notify(method string, params any) error {
	var p json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("encode %s: %w", method, err)
		}
		p = b
	}
	return r.write(message{Method: method, Params: p})
}

// answer sends the result of one of Codex's requests.
func (r *rpc) answer(id json.RawMessage, result any) error {
	b, err := json.Marshal(result)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return r.write(message{ID: id, Result: b})
}

// refuse answers one of Codex's requests with an error, so that it does
// not wait for an answer that will never come.
func (r *rpc) refuse(id json.RawMessage, code int, text string) error {
	return r.write(message{ID: id, Error: &rpcError{Code: code, Message: text}})
}

// response delivers a response to its caller, or to what handles it
// late (run here, on the reader's goroutine); false when nobody waits.
func (r *rpc) response(m message) bool {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	if err != nil {
		return false
	}
	r.mu.Lock()
	if ch, ok := r.waiting[id]; ok {
		// Under r.mu, so that a caller giving up (unanswered) finds it;
		// never blocks: one answer an id, a second one is dropped.
		select {
		case ch <- m:
		default:
		}
		r.mu.Unlock()
		return true
	}
	late, ok := r.late[id]
	delete(r.late, id)
	r.mu.Unlock()
	if ok {
		late(m)
	}
	return ok
}

// ended fails every waiting call: the process is gone.
func (r *rpc) ended(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gone = err
	for id, ch := range r.waiting {
		close(ch)
		delete(r.waiting, id)
	}
	clear(r.late) // no answer comes any more
}

// lines calls fn with every line of rd, without its newline; a line longer
// than max is skipped whole (reported with ok false).
func lines(rd io.Reader, max int, fn func(line []byte, ok bool)) error {
	br := bufio.NewReaderSize(rd, 64<<10)
	var buf []byte
	long := false
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("read codex output: %w", err)
		}
		if !long {
			buf = append(buf, chunk...)
			if len(buf) > max {
				long, buf = true, nil
			}
		}
		if isPrefix {
			continue
		}
		if long {
			fn(nil, false)
		} else {
			fn(bytes.Clone(buf), true)
		}
		buf, long = buf[:0], false
	}
}
