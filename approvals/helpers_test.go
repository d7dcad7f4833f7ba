package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/untether/untether/engine"
)

const (
	chatA  int64 = 100
	chatB  int64 = 200
	owner  int64 = 1
	intrud int64 = 666
)

// call is one answer a fakeResponder received.
type call struct {
	allow     bool
	id        string
	input     json.RawMessage
	perms     []json.RawMessage
	message   string
	interrupt bool
}

// fakeResponder records answers; err, when set, is returned by every call.
type fakeResponder struct {
	mu    sync.Mutex
	calls []call
	err   error
}

func (f *fakeResponder) Allow(_ context.Context, id string, input json.RawMessage, perms []json.RawMessage) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{allow: true, id: id, input: input, perms: perms})
	return f.err
}

func (f *fakeResponder) Deny(_ context.Context, id, msg string, interrupt bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{id: id, message: msg, interrupt: interrupt})
	return f.err
}

func (f *fakeResponder) all() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

// only returns the single recorded call, failing otherwise.
func (f *fakeResponder) only(t *testing.T) call {
	t.Helper()
	c := f.all()
	if len(c) != 1 {
		t.Fatalf("responder got %d calls, want 1: %+v", len(c), c)
	}
	return c[0]
}

// resolutions collects OnResolved reports.
type resolutions struct {
	mu  sync.Mutex
	got []Resolution
}

func (r *resolutions) hook(res Resolution) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, res)
}

func (r *resolutions) all() []Resolution {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Resolution(nil), r.got...)
}

// newTestBroker returns a broker where only owner may press, with cfg's
// other fields as given.
func newTestBroker(cfg Config) (*Broker, *resolutions) {
	res := &resolutions{}
	if cfg.IsAllowed == nil {
		cfg.IsAllowed = func(id int64) bool { return id == owner }
	}
	if cfg.OnResolved == nil {
		cfg.OnResolved = res.hook
	}
	return New(cfg), res
}

func toolReq(id, tool, input string) Request {
	return Request{
		RequestID:  id,
		Kind:       kindOf(tool),
		ToolName:   tool,
		Input:      json.RawMessage(input),
		ToolUseID:  "toolu_" + id,
		ChatID:     chatA,
		SessionKey: "100",
	}
}

func mustSubmit(t *testing.T, b *Broker, req Request, r Responder) Submission {
	t.Helper()
	sub, err := b.Submit(context.Background(), req, r)
	if err != nil {
		t.Fatalf("Submit(%s): %v", req.RequestID, err)
	}
	return sub
}

func mustPrompt(t *testing.T, b *Broker, req Request, r Responder) *Prompt {
	t.Helper()
	sub := mustSubmit(t, b, req, r)
	if sub.Prompt == nil {
		t.Fatalf("Submit(%s %s) answered automatically (%s, %q), want a prompt", req.RequestID, req.ToolName, sub.Outcome, sub.Reason)
	}
	return sub.Prompt
}

func mustPress(t *testing.T, b *Broker, token string) Result {
	t.Helper()
	res, err := b.Press(context.Background(), token, owner, chatA)
	if err != nil {
		t.Fatalf("Press: %v", err)
	}
	return res
}

func tokenOf(t *testing.T, p *Prompt, k ActionKind) string {
	t.Helper()
	for _, a := range p.Actions {
		if a.Kind == k {
			return a.Token
		}
	}
	t.Fatalf("prompt has no %s action: %+v", k, p.Actions)
	return ""
}

func refusalKind(err error) RefusalKind {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Kind
	}
	return ""
}

// sameJSON compares two JSON documents by value.
func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v: %s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v: %s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("JSON differs\n got: %s\nwant: %s", got, want)
	}
}

// kindOf is the kind the runner gives a request for Claude Code's tool.
func kindOf(tool string) engine.RequestKind {
	switch tool {
	case "Bash":
		return engine.RequestCommand
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return engine.RequestFileChange
	case "AskUserQuestion":
		return engine.RequestQuestion
	case "ExitPlanMode":
		return engine.RequestPlan
	}
	return engine.RequestTool
}
