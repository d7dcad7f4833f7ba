package codex_test

// Contract tests: the real Codex CLI (the binary named by
// UNTETHER_TEST_CODEX, see .ci/install-codex.sh) against the fake
// Responses API of codextest. They pin down the app-server facts the
// engine relies on (docs/protocol-codex.md). Without the variable they skip.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
)

// hang bounds a wait on the real CLI as a hang's, not as its speed.
const hang = 3 * time.Minute

func codexBinary(t testing.TB) string { return codextest.Binary(t) }

// rig is a fake API, a CODEX_HOME pointed at it, and a project directory.
type rig struct {
	api  *codextest.API
	home string
	dir  string
	eng  *codex.Engine
}

func newRig(t testing.TB, respond codextest.Responder) *rig {
	t.Helper()
	bin := codexBinary(t)
	api := codextest.New(t, respond)
	home := api.Home(t)
	dir := t.TempDir()
	return &rig{api: api, home: home, dir: dir, eng: &codex.Engine{Base: codex.Options{
		Binary:   bin,
		WorkDir:  dir,
		Env:      append(os.Environ(), "CODEX_HOME="+home),
		StripEnv: []string{"UNTETHER_TEST_SECRET"},
	}}}
}

func (r *rig) start(t testing.TB, resume string) engine.Conn {
	t.Helper()
	// The session lives as long as the Start context (engine.Queue's
	// abandon): the test's.
	ctx, cancel := context.WithCancel(context.Background())
	c, err := r.eng.Start(ctx, engine.Spec{Resume: resume, Partial: true})
	if err != nil {
		cancel()
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()); cancel() })
	return c
}

// next returns the next event of the wanted type, failing on Exited.
func next[T engine.Event](t testing.TB, c engine.Conn, seen *[]engine.Event) T {
	t.Helper()
	timeout := time.After(hang)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed while waiting for %T; seen %#v", *new(T), *seen)
			}
			*seen = append(*seen, ev)
			if want, ok := ev.(T); ok {
				return want
			}
			if ex, ok := ev.(engine.Exited); ok {
				t.Fatalf("exited while waiting for %T: %+v", *new(T), ex)
			}
		case <-timeout:
			t.Fatalf("no %T within %v; seen %#v", *new(T), hang, *seen)
		}
	}
}

func send(t testing.TB, c engine.Conn, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	if err := c.Send(ctx, text); err != nil {
		t.Fatalf("send: %v", err)
	}
}

func TestPromptIsAnswered(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	if c.SessionID() == "" {
		t.Fatal("no thread id after start")
	}
	send(t, c, "hello there")
	var seen []engine.Event
	st := next[engine.SessionStarted](t, c, &seen)
	if st.SessionID != c.SessionID() || st.Version != "0.171.0" || st.PermissionMode != engine.ModeDefault {
		t.Errorf("session started = %+v", st)
	}
	tc := next[engine.TurnCompleted](t, c, &seen)
	if tc.Outcome != engine.OutcomeDone || tc.Result != "echo: hello there" {
		t.Errorf("turn completed = %+v", tc)
	}
	// One model call: the fake's usage, cached input counted apart.
	if tc.Usage != (engine.Usage{InputTokens: 90, CacheReadInputTokens: 10, OutputTokens: 20}) || tc.ContextTokens != 100 {
		t.Errorf("usage = %+v, context %d", tc.Usage, tc.ContextTokens)
	}
	var partial strings.Builder
	full := ""
	for _, ev := range seen {
		if tx, ok := ev.(engine.Text); ok {
			if tx.Partial {
				partial.WriteString(tx.Text)
			} else {
				full = tx.Text
			}
		}
	}
	if partial.String() != "echo: hello there" || full != "echo: hello there" {
		t.Errorf("text deltas %q, full %q", partial.String(), full)
	}
	reqs := r.api.Requests()
	if len(reqs) != 1 || !reqs[0].Stream || !reqs[0].HasTool("exec_command") || reqs[0].Model != codextest.Model {
		t.Errorf("requests = %+v", reqs)
	}
}

// approve runs "run: CMD" and answers the command's approval with answer.
func approve(t *testing.T, cmd string, answer func(engine.Conn, engine.ApprovalRequest) error) (*rig, []engine.Event, engine.TurnCompleted) {
	t.Helper()
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "run: "+cmd)
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	var in struct{ Command string }
	if err := json.Unmarshal(req.Input, &in); err != nil || req.Kind != engine.RequestCommand || in.Command != cmd {
		t.Fatalf("approval request = %+v, input %s", req, req.Input)
	}
	if err := answer(c, req); err != nil {
		t.Fatalf("answer: %v", err)
	}
	if err := answer(c, req); err != engine.ErrUnknownRequest {
		t.Errorf("second answer: %v, want ErrUnknownRequest", err)
	}
	return r, seen, next[engine.TurnCompleted](t, c, &seen)
}

func TestCommandApprovedRuns(t *testing.T) {
	r, seen, tc := approve(t, "echo hi > out.txt", func(c engine.Conn, req engine.ApprovalRequest) error {
		return c.Allow(context.Background(), req.RequestID, nil, nil)
	})
	if b, err := os.ReadFile(filepath.Join(r.dir, "out.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("out.txt = %q, %v", b, err)
	}
	if tc.Outcome != engine.OutcomeDone || !strings.HasPrefix(tc.Result, "done: ") {
		t.Errorf("turn = %+v", tc)
	}
	var started, completed bool
	for _, ev := range seen {
		switch e := ev.(type) {
		case engine.ActionStarted:
			started = e.Kind == "command" && e.Title == "echo hi > out.txt"
		case engine.ActionCompleted:
			completed = e.OK
		}
	}
	if !started || !completed {
		t.Errorf("action started %v completed %v: %#v", started, completed, seen)
	}
	// Two model calls in the turn: their usage adds up.
	if tc.Usage.OutputTokens != 40 {
		t.Errorf("usage = %+v", tc.Usage)
	}
}

func TestCommandDeniedDoesNotRunAndTurnEnds(t *testing.T) {
	r, _, tc := approve(t, "echo hi > out.txt", func(c engine.Conn, req engine.ApprovalRequest) error {
		return c.Deny(context.Background(), req.RequestID, "no", false)
	})
	if _, err := os.Stat(filepath.Join(r.dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("out.txt exists after deny: %v", err)
	}
	// decline: the turn goes on, the model is told and answers.
	if tc.Outcome != engine.OutcomeDone || !strings.Contains(tc.Result, "rejected by user") {
		t.Errorf("turn = %+v", tc)
	}
}

func TestCommandDeniedWithInterruptCancels(t *testing.T) {
	r, _, tc := approve(t, "echo hi > out.txt", func(c engine.Conn, req engine.ApprovalRequest) error {
		return c.Deny(context.Background(), req.RequestID, "stop", true)
	})
	if _, err := os.Stat(filepath.Join(r.dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("out.txt exists after cancel: %v", err)
	}
	if tc.Outcome != engine.OutcomeCancelled || len(r.api.Requests()) != 1 {
		t.Errorf("turn = %+v after %d model calls", tc, len(r.api.Requests()))
	}
}

func TestFileChangeAsksWithItsDiff(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "run: apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\nEOF\n")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	if req.Kind != engine.RequestFileChange || !strings.Contains(string(req.Input), `"diff":"hello\n"`) || len(req.Suggestions) != 1 {
		t.Fatalf("approval request = %+v input %s", req, req.Input)
	}
	if err := c.Allow(context.Background(), req.RequestID, nil, req.Suggestions); err != nil {
		t.Fatal(err)
	}
	if tc := next[engine.TurnCompleted](t, c, &seen); tc.Outcome != engine.OutcomeDone {
		t.Errorf("turn = %+v", tc)
	}
	if b, err := os.ReadFile(filepath.Join(r.dir, "new.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("new.txt = %q, %v", b, err)
	}
}

func TestInterruptWithApprovalPending(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "run: sleep 30")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	if err := c.Interrupt(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tc := next[engine.TurnCompleted](t, c, &seen); tc.Outcome != engine.OutcomeCancelled {
		t.Errorf("turn = %+v", tc)
	}
	// Codex withdraws the request after the turn ends.
	if ac := next[engine.ApprovalCancelled](t, c, &seen); ac.RequestID != req.RequestID {
		t.Errorf("cancelled %q, want %q", ac.RequestID, req.RequestID)
	}
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != engine.ErrUnknownRequest {
		t.Errorf("answer after withdrawal: %v", err)
	}
	_ = r
}

func TestResumeAfterProcessEnded(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "first prompt")
	var seen []engine.Event
	next[engine.TurnCompleted](t, c, &seen)
	id := c.SessionID()
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	c2 := r.start(t, id)
	if c2.SessionID() != id {
		t.Fatalf("resumed thread %q, want %q", c2.SessionID(), id)
	}
	send(t, c2, "second prompt")
	if tc := next[engine.TurnCompleted](t, c2, &seen); tc.Outcome != engine.OutcomeDone || tc.Result != "echo: second prompt" {
		t.Errorf("turn = %+v", tc)
	}
	// The model saw the first turn again: the thread's history came back.
	reqs := r.api.Requests()
	last := reqs[len(reqs)-1]
	found := false
	for _, raw := range last.Input {
		found = found || strings.Contains(string(raw), "first prompt")
	}
	if !found {
		t.Error("resumed turn's request lacks the first prompt")
	}
}

func TestProcessDyingMidTurn(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "run: sleep 30")
	var seen []engine.Event
	next[engine.ApprovalRequest](t, c, &seen)
	// SIGKILL to the app-server's group (launcher, native binary, sleep).
	_ = r
	codex.KillForTest(c)
	ex := next[engine.Exited](t, c, &seen)
	if !ex.MidTurn || ex.Err == nil {
		t.Errorf("exited = %+v", ex)
	}
	select {
	case <-c.Done():
	case <-time.After(hang):
		t.Fatal("not done after exit")
	}
}
