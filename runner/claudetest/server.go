// Package claudetest is a scripted fake of Anthropic's Messages API for tests
// that run the real Claude Code CLI: the CLI is pointed at it with Env, and
// each test scripts what the "model" answers and inspects what it was sent.
package claudetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// API is a fake Messages API on 127.0.0.1, closed when the test ends.
type API struct {
	t      reporter
	srv    *httptest.Server
	closed chan struct{}

	mu       sync.Mutex
	steps    []Step
	uses     map[int]int // answers given per step index, for Reply.Uses
	retired  int         // steps retired by Reply.Uses; they shift the index
	requests []Request
	other    []string
	changed  chan struct{} // closed and replaced whenever a request is recorded
}

// NewAPI starts a fake API answering with the given script: the request that
// carries N assistant messages gets steps[N]; past the end, DefaultReply.
func NewAPI(t testing.TB, steps ...Step) *API {
	t.Helper()
	a := newAPI(t, steps...)
	a.srv = httptest.NewServer(a)
	t.Cleanup(a.Close)
	return a
}

// reporter is what the API reports through: a test, or a standalone
// server's log (NewStandalone).
type reporter interface {
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
}

func newAPI(t reporter, steps ...Step) *API {
	return &API{t: t, closed: make(chan struct{}), steps: steps, uses: map[int]int{}, changed: make(chan struct{})}
}

// URL is the base URL to put in ANTHROPIC_BASE_URL.
func (a *API) URL() string { return a.srv.URL }

// Append adds steps to the end of the script.
func (a *API) Append(steps ...Step) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steps = append(a.steps, steps...)
}

// Requests returns the Messages API requests received so far, in arrival
// order (retries included).
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// OtherRequests returns "METHOD /path?query" of every request that was not a
// Messages API call (count_tokens, unknown paths).
func (a *API) OtherRequests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.other...)
}

// WaitRequests blocks until at least n Messages requests arrived (the reply
// to the n-th may still be streaming) and returns them, or fails with the
// context's error.
func (a *API) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	for {
		a.mu.Lock()
		got, changed := len(a.requests), a.changed
		a.mu.Unlock()
		if got >= n {
			return a.Requests(), nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for %d requests (have %d): %w", n, got, ctx.Err())
		}
	}
}

// ServeHTTP routes: POST /v1/messages (streaming or not), POST
// /v1/messages/count_tokens, anything else 404 with Anthropic's error JSON.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("request-id", newID("req_"))
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		a.serveMessages(w, r)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		a.recordOther(r)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "read body: "+err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": estimateTokens(string(body))})
	default:
		a.recordOther(r)
		writeError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("fake API: no route for %s %s", r.Method, r.URL.Path))
	}
}

func (a *API) recordOther(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.other = append(a.other, r.Method+" "+r.URL.RequestURI())
}

func (a *API) serveMessages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "read body: "+err.Error())
		return
	}
	req, err := parseRequest(r, body)
	if err != nil {
		a.recordOther(r)
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	step, turn := a.record(req)
	reply := step.Respond(req)
	a.count(turn, reply)
	a.t.Logf("claudetest: %s step %d (%d messages, stream=%v, retry=%s) -> %s",
		req.Path, turn, len(req.Messages), req.Stream, r.Header.Get("x-stainless-retry-count"), describe(reply))

	for k, vs := range reply.Header {
		w.Header()[k] = vs
	}
	if reply.Status != 0 {
		writeError(w, reply.Status, reply.errType(), reply.ErrMessage)
		return
	}
	msg, err := resolve(reply, req, len(body))
	if err != nil {
		a.t.Errorf("claudetest: step %d: %v", turn, err)
		writeError(w, http.StatusInternalServerError, "api_error", err.Error())
		return
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, messageJSON(msg, true))
		return
	}

	flusher, ok := w.(http.Flusher)
	if !ok {
		a.t.Errorf("claudetest: response writer cannot flush")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{w: w, flush: flusher.Flush, delay: reply.Delay, hang: reply.Hang, wait: a.wait}
	if err := s.writeStream(r.Context(), msg); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errClosed) {
		// A client that hangs up mid-stream (an interrupt) is normal; say so
		// in the log only.
		a.t.Logf("claudetest: stream for step %d ended early: %v", turn, err)
	}
}

// record stores the request and picks its step and the step's index.
func (a *API) record(req *Request) (Step, int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, *req)
	close(a.changed)
	a.changed = make(chan struct{})
	n := req.AssistantTurns() + a.retired
	if n < len(a.steps) {
		return a.steps[n], n
	}
	return DefaultReply, n
}

// count retires step n once it gave the reply its Uses limit allows.
func (a *API) count(n int, reply Reply) {
	if reply.Uses <= 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.uses[n]++
	if a.uses[n] == reply.Uses {
		a.retired++
	}
}

var errClosed = errors.New("fake API closed")

// wait pauses for d, ending early when the client goes away or the API closes.
func (a *API) wait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-a.closed:
		return errClosed
	}
}

// resolve turns a scripted reply into a message: fresh ids, encoded inputs.
func resolve(reply Reply, req *Request, bodyLen int) (message, error) {
	msg := message{
		ID:          newID("msg_"),
		Model:       req.Model,
		StopReason:  reply.stopReason(),
		InputTokens: bodyLen/4 + 1,
	}
	if msg.Model == "" {
		msg.Model = "claude-fake"
	}
	if reply.InputTokens > 0 {
		msg.InputTokens = reply.InputTokens
	}
	out := 1
	for i, p := range reply.Parts {
		rp := resolvedPart{Kind: p.Kind, Text: p.Text, Name: p.Name, ID: p.ID}
		if p.Kind == "tool_use" {
			if rp.ID == "" {
				rp.ID = newID("toolu_")
			}
			input := p.Input
			if input == nil {
				input = map[string]any{}
			}
			b, err := json.Marshal(input)
			if err != nil {
				return message{}, fmt.Errorf("encode input of tool_use %d (%s): %w", i, p.Name, err)
			}
			rp.Input = b
			out += estimateTokens(string(b))
		} else {
			out += estimateTokens(p.Text)
		}
		msg.Parts = append(msg.Parts, rp)
	}
	msg.OutputTokens = out
	return msg, nil
}

func describe(r Reply) string {
	if r.Status != 0 {
		return fmt.Sprintf("error %d %q", r.Status, r.ErrMessage)
	}
	s := ""
	for _, p := range r.Parts {
		if p.Kind == "tool_use" {
			s += " tool_use:" + p.Name
		} else {
			s += " " + p.Kind
		}
	}
	if r.Delay > 0 {
		s += fmt.Sprintf(" (slow %v)", r.Delay)
	}
	if r.Hang > 0 {
		s += fmt.Sprintf(" (hang after %d deltas)", r.Hang-1)
	}
	return "[" + s + " ]"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"type":"error","error":{"type":"api_error","message":"fake API: encode failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // the client going away is not the fake's problem
}

// writeError answers with Anthropic's error body.
func writeError(w http.ResponseWriter, status int, errType, message string) {
	writeJSON(w, status, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": errType, "message": message},
	})
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return prefix + hex.EncodeToString(b)
}
