// Package codextest is a fake of OpenAI's Responses API for tests that run
// the real Codex CLI (package codex's contract tests): the CLI is pointed at
// it by a config.toml in a CODEX_HOME of the test's own (Home), and the
// test says what the "model" answers (Reply) and reads what it was sent.
// It listens on 127.0.0.1 only; nothing reaches OpenAI.
package codextest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one POST /v1/responses as Codex sent it.
type Request struct {
	Model  string            `json:"model"`
	Stream bool              `json:"stream"`
	Input  []json.RawMessage `json:"input"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// item is the part of an input item the fake reads.
type item struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	CallID  string `json:"call_id"`
	Output  string `json:"output"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func (r Request) items() []item {
	out := make([]item, 0, len(r.Input))
	for _, raw := range r.Input {
		var it item
		_ = json.Unmarshal(raw, &it) // a shape we do not know stays empty
		out = append(out, it)
	}
	return out
}

// LastUserText is the text of the last user message (Codex's own context
// messages, such as <environment_context>, count as user messages too).
func (r Request) LastUserText() string {
	its := r.items()
	for i := len(its) - 1; i >= 0; i-- {
		if its[i].Type == "message" && its[i].Role == "user" {
			var b strings.Builder
			for _, c := range its[i].Content {
				b.WriteString(c.Text)
			}
			return b.String()
		}
	}
	return ""
}

// CallOutput is the output Codex sent for the last function call, when the
// last input item is one (the model is asked to go on after a command).
func (r Request) CallOutput() (string, bool) {
	its := r.items()
	if len(its) == 0 || its[len(its)-1].Type != "function_call_output" {
		return "", false
	}
	return its[len(its)-1].Output, true
}

// Carries reports whether any input item of the request has text in it
// (raw JSON: a steered message, a function call's output, …).
func (r Request) Carries(text string) bool {
	for _, in := range r.Input {
		if strings.Contains(string(in), text) {
			return true
		}
	}
	return false
}

// HasTool reports whether the request offered the model a tool by name.
func (r Request) HasTool(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Reply is what the fake model answers: Text (streamed as two deltas), or
// a call of Codex's shell tool, exec_command {"cmd": Command}, or a call
// of another tool (Call).
type Reply struct {
	Text    string
	Command string
	// Call, when set, calls that tool with those arguments (a JSON object).
	Call *Call
	// Pause is waited between the two halves of Text: a turn caught
	// mid-answer (a draft shows the first half).
	Pause time.Duration
	// Status, when not 0, answers with this HTTP status and no stream.
	Status int
}

// Call is a function call the fake model makes.
type Call struct {
	Name      string
	Arguments string
}

// Responder decides the reply to a request.
type Responder func(Request) Reply

// DefaultResponder: after a command, "done: " and the command's output;
// a prompt "run: CMD" calls exec_command with CMD; anything else is
// answered "echo: " and the prompt.
func DefaultResponder(r Request) Reply {
	if out, ok := r.CallOutput(); ok {
		return Reply{Text: "done: " + out}
	}
	text := r.LastUserText()
	if cmd, ok := strings.CutPrefix(text, "run: "); ok {
		return Reply{Command: cmd}
	}
	return Reply{Text: "echo: " + text}
}

// API is the fake Responses API, closed when the test ends.
type API struct {
	srv     *httptest.Server
	respond Responder

	mu       sync.Mutex
	requests []Request
	other    []string
	calls    int
}

// New starts the fake on 127.0.0.1; respond nil means DefaultResponder.
func New(t testing.TB, respond Responder) *API {
	t.Helper()
	if respond == nil {
		respond = DefaultResponder
	}
	a := &API{respond: respond}
	a.srv = httptest.NewServer(a)
	t.Cleanup(a.srv.Close)
	return a
}

// BaseURL is the model provider's base_url (Codex appends /responses).
func (a *API) BaseURL() string { return a.srv.URL + "/v1" }

// Requests returns the Responses API calls received so far, in order.
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// OtherRequests returns "METHOD /path" of every other request.
func (a *API) OtherRequests() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.other...)
}

func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
		a.mu.Lock()
		a.other = append(a.other, r.Method+" "+r.URL.Path)
		a.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	var req Request
	if err == nil {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		http.Error(w, fmt.Sprintf("bad request: %v", err), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.calls++
	n := a.calls
	a.mu.Unlock()

	reply := a.respond(req)
	if reply.Status != 0 {
		http.Error(w, `{"error":{"message":"fake failure","type":"server_error"}}`, reply.Status)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for i, ev := range events(n, reply) {
		if reply.Pause > 0 && i == pauseAt {
			select {
			case <-time.After(reply.Pause):
			case <-r.Context().Done():
				return
			}
		}
		writeEvent(w, ev)
	}
}
