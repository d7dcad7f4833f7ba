package runner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/toolkinds"
)

// Contract tests of can_use_tool: what the CLI asks, and what each answer does.

func bashUse(command string) claudetest.Part {
	return claudetest.ToolUse("Bash", map[string]any{"command": command, "description": "Run " + command})
}

func inputField(t *testing.T, input json.RawMessage, key string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil {
		t.Fatalf("approval input %s: %v", input, err)
	}
	s, _ := m[key].(string)
	return s
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// toolResultFor finds the tool_result the model received for toolUseID.
func (r *rig) toolResultFor(toolUseID string) claudetest.ToolResult {
	r.t.Helper()
	for _, req := range r.api.Requests() {
		for _, tr := range req.ToolResults() {
			if tr.ToolUseID == toolUseID {
				return tr
			}
		}
	}
	r.t.Fatalf("no request carried a tool_result for %s", toolUseID)
	return claudetest.ToolResult{}
}

func TestContractBashAllowRewritten(t *testing.T) { bashAllowRewritten(t, newRig(t, true)) }

func bashAllowRewritten(t *testing.T, r *rig) {
	r.serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("made it"))
	s := r.start()
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Create a.txt.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		if got := s.Pending(); len(got) != 1 || got[0] != req.RequestID {
			t.Errorf("Pending() = %v while %s waits", got, req.RequestID)
		}
		// What runs is the updated input, not what the model asked for.
		rewritten := json.RawMessage(`{"command":"touch b.txt","description":"Create b.txt instead"}`)
		if err := s.Allow(ctxFor(t), req.RequestID, rewritten, nil); err != nil {
			t.Fatal(err)
		}
	})
	starts := eventsOf[engine.ActionStarted](log.events)
	if len(asked) != 1 || len(starts) != 1 {
		t.Fatalf("want one action and one approval:%s", log)
	}
	req, as := asked[0], starts[0]
	if as.Tool != "Bash" || as.Kind != toolkinds.Command || as.Title != "touch a.txt" {
		t.Errorf("action = %+v", as)
	}
	if req.ToolName != "Bash" || req.ToolUseID != as.ToolUseID || inputField(t, req.Input, "command") != "touch a.txt" ||
		len(req.Suggestions) == 0 || req.RequiresUserInteraction {
		t.Errorf("approval request = %+v", req)
	}
	if done := eventsOf[engine.ActionCompleted](log.events); len(done) != 1 || !done[0].OK || done[0].ToolUseID != as.ToolUseID {
		t.Errorf("completed = %+v", done)
	}
	if !log.done.OK || log.done.Result != "made it" || len(s.Pending()) != 0 {
		t.Errorf("turn = %+v, pending %v", log.done, s.Pending())
	}
	if !exists(r.path("b.txt")) || exists(r.path("a.txt")) {
		t.Errorf("b.txt exists: %v, a.txt exists: %v; want only the rewritten command to run",
			exists(r.path("b.txt")), exists(r.path("a.txt")))
	}
	if tr := r.toolResultFor(as.ToolUseID); tr.IsError {
		t.Errorf("tool result of the allowed command = %+v", tr)
	}
}

func TestContractBashDenied(t *testing.T) {
	const why = "Denied from Telegram: not today."
	r := newRig(t, true).serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("understood"))
	s := r.start()
	log := turn(t, s, "Create a.txt.", func(req engine.ApprovalRequest) {
		if err := s.Deny(ctxFor(t), req.RequestID, why, false); err != nil {
			t.Fatal(err)
		}
	})
	as := eventsOf[engine.ActionStarted](log.events)
	done := eventsOf[engine.ActionCompleted](log.events)
	if len(as) != 1 || len(done) != 1 || done[0].OK || done[0].Detail != why {
		t.Fatalf("want the action completed as failed with the message:%s", log)
	}
	// A plain denial lets the turn go on: the model answers it.
	if !log.done.OK || log.done.Result != "understood" {
		t.Errorf("turn = %+v", log.done)
	}
	if len(log.done.Denials) != 1 || log.done.Denials[0].ToolName != "Bash" || log.done.Denials[0].ToolUseID != as[0].ToolUseID {
		t.Errorf("permission denials = %+v", log.done.Denials)
	}
	if exists(r.path("a.txt")) {
		t.Error("a denied command ran")
	}
	if tr := r.toolResultFor(as[0].ToolUseID); !tr.IsError || tr.Content != why {
		t.Errorf("the model received %+v, want the message verbatim as an error", tr)
	}
}

func TestContractDenyWithInterrupt(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("next turn works"))
	s := r.start()
	log := turn(t, s, "Create a.txt.", func(req engine.ApprovalRequest) {
		if err := s.Deny(ctxFor(t), req.RequestID, "Stopped from Telegram.", true); err != nil {
			t.Fatal(err)
		}
	})
	tc := log.done
	if tc.OK || tc.Outcome != engine.OutcomeCancelled || tc.Reason != "error_during_execution/aborted_tools" || tc.ErrorText != "interrupted" {
		t.Errorf("interrupted turn = %+v", tc)
	}
	if exists(r.path("a.txt")) {
		t.Error("a denied command ran")
	}
	next := turn(t, s, "Carry on.", nil)
	if !next.done.OK || next.done.Result != "next turn works" {
		t.Errorf("turn after the interrupt = %+v", next.done)
	}
	// What the model is shown about the interrupted tool in the next turn.
	if as := eventsOf[engine.ActionStarted](log.events); len(as) == 1 {
		tr := r.toolResultFor(as[0].ToolUseID)
		t.Logf("tool result after deny+interrupt: %+v", tr)
		if !tr.IsError {
			t.Errorf("the interrupted tool's result is not an error: %+v", tr)
		}
	}
}

func TestContractWriteApproval(t *testing.T) {
	const content = "line one\nline two\n"
	r := newRig(t, true)
	target := r.path("notes.txt")
	r.serve(claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": target, "content": content})),
		claudetest.Say("written"))
	s := r.start()
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Write notes.txt.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		// Allow without updatedInput: the model's input runs unchanged.
		if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if len(asked) != 1 || asked[0].ToolName != "Write" || inputField(t, asked[0].Input, "file_path") != target ||
		asked[0].Description != "notes.txt" {
		t.Fatalf("approvals = %+v", asked)
	}
	if as := eventsOf[engine.ActionStarted](log.events); len(as) != 1 || as[0].Kind != toolkinds.FileChange || as[0].Title != "notes.txt" {
		t.Errorf("action = %+v", as)
	}
	got, err := os.ReadFile(target)
	if err != nil || string(got) != content {
		t.Errorf("notes.txt = %q, %v; want %q", got, err, content)
	}
	if !log.done.OK {
		t.Errorf("turn = %+v", log.done)
	}
}

func TestContractAlwaysAllow(t *testing.T) { alwaysAllow(t, newRig(t, true)) }

// alwaysAllow: an "always allow" answer covers the same request again in
// the process, its rule outlives the process (resumed), its mode does not.
func alwaysAllow(t *testing.T, r *rig) {
	r.serve(
		claudetest.Answer(bashUse("touch a.txt")),
		claudetest.Answer(bashUse("touch a.txt")), // the same request again
		claudetest.Say("both done"),
		claudetest.Answer(bashUse("touch a.txt")), // and again, in a new process
		claudetest.Say("done again"),
	)
	s := r.start()
	var asked []engine.ApprovalRequest
	log := turn(t, s, "Touch a.txt twice.", func(req engine.ApprovalRequest) {
		asked = append(asked, req)
		if err := s.Allow(ctxFor(t), req.RequestID, req.Input, req.Suggestions); err != nil {
			t.Fatal(err)
		}
	})
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once:%s", len(asked), log)
	}
	if done := eventsOf[engine.ActionCompleted](log.events); len(done) != 2 || !done[0].OK || !done[1].OK {
		t.Errorf("completed = %+v", done)
	}
	// A setMode suggestion switches the live session's mode.
	for _, sg := range asked[0].Suggestions {
		var m struct{ Type, Mode string }
		if json.Unmarshal(sg, &m) == nil && m.Type == "setMode" {
			if ch := eventsOf[engine.PermissionModeChanged](log.events); len(ch) == 0 || ch[0].Mode != m.Mode {
				t.Errorf("suggested mode %s, mode changes %+v", m.Mode, ch)
			}
		}
	}
	// The addRules suggestion is written to the project's local settings,
	// so it outlives the process.
	settings, err := os.ReadFile(filepath.Join(r.opts.WorkDir, ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(settings), "touch a.txt") {
		t.Errorf("settings.local.json = %s, %v", settings, err)
	}
	id := s.SessionID()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	s2 := r.start(func(o *Options) { o.Resume = id })
	again := turn(t, s2, "Once more.", nil) // nil: being asked fails the test
	st := eventsOf[engine.SessionStarted](again.events)
	if len(st) != 1 || !again.done.OK {
		t.Errorf("resumed turn = %+v", again.done)
	}
	// The session-scoped mode change does not survive the process.
	t.Logf("permission mode after resume: %q", st[0].PermissionMode)
	if st[0].PermissionMode != "default" {
		t.Errorf("mode after resume = %q, want default", st[0].PermissionMode)
	}
}

func TestContractAskUserQuestion(t *testing.T) {
	const question = "Which colour should the button be?"
	r := newRig(t, true).serve(
		claudetest.Answer(claudetest.ToolUse("AskUserQuestion", map[string]any{"questions": []any{map[string]any{
			"question": question, "header": "Colour", "multiSelect": false,
			"options": []any{
				map[string]any{"label": "Red", "description": "A red button"},
				map[string]any{"label": "Blue", "description": "A blue button"},
			},
		}}})),
		claudetest.Say("Noted."),
	)
	s := r.start()
	var chosen string
	log := turn(t, s, "Ask me which colour.", func(req engine.ApprovalRequest) {
		if req.ToolName != "AskUserQuestion" || !req.RequiresUserInteraction {
			t.Errorf("request = %+v", req)
		}
		var in struct {
			Questions []struct {
				Question string
				Options  []struct{ Label string }
			}
		}
		if err := json.Unmarshal(req.Input, &in); err != nil || len(in.Questions) != 1 || len(in.Questions[0].Options) != 2 {
			t.Fatalf("question input %s: %v", req.Input, err)
		}
		q := in.Questions[0]
		chosen = q.Options[1].Label
		var full map[string]any
		if err := json.Unmarshal(req.Input, &full); err != nil {
			t.Fatal(err)
		}
		full["answers"] = map[string]string{q.Question: chosen}
		updated, err := json.Marshal(full)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Allow(ctxFor(t), req.RequestID, updated, nil); err != nil {
			t.Fatal(err)
		}
	})
	as := eventsOf[engine.ActionStarted](log.events)
	if len(as) != 1 || !log.done.OK {
		t.Fatalf("turn:%s", log)
	}
	tr := r.toolResultFor(as[0].ToolUseID)
	t.Logf("AskUserQuestion tool result: %q", tr.Content)
	if tr.IsError || !strings.Contains(tr.Content, chosen) || !strings.Contains(tr.Content, question) {
		t.Errorf("the model received %+v, want the question and the chosen label %q", tr, chosen)
	}
}

func TestContractInterruptWithPendingApproval(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Answer(bashUse("touch a.txt")), claudetest.Say("next turn works"))
	s := r.start()
	if err := s.Send(ctxFor(t), "Create a.txt."); err != nil {
		t.Fatal(err)
	}
	req := next[engine.ApprovalRequest](t, s)
	// Measured: the CLI withdraws the request (control_cancel_request with
	// its id), rejects the tool and ends the turn as aborted_tools.
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	log := runTurn(t, s, nil)
	if tc := log.done; tc.OK || !saidReason(tc, "aborted_tools") {
		t.Errorf("turn = %+v", tc)
	}
	if done := eventsOf[engine.ActionCompleted](log.events); len(done) != 1 || done[0].OK || done[0].ToolUseID != req.ToolUseID {
		t.Errorf("the withdrawn tool completed as %+v", done)
	}
	// The withdrawal reaches the consumer and the runner forgets the id, so
	// a late answer is refused instead of being written to the CLI.
	if c := eventsOf[engine.ApprovalCancelled](log.events); len(c) != 1 || c[0].RequestID != req.RequestID {
		t.Errorf("want one ApprovalCancelled for %s, got %+v", req.RequestID, c)
	}
	// Measured: the withdrawal is the first thing the CLI says after the
	// interrupt, before the failed tool and the result, so a consumer can
	// take the prompt's buttons away while the turn is still closing.
	t.Logf("after the interrupt:%s", log)
	if _, first := log.events[0].(engine.ApprovalCancelled); !first {
		t.Errorf("the withdrawal is not the first event after the interrupt:%s", log)
	}
	if p := s.Pending(); len(p) != 0 {
		t.Errorf("withdrawn request still pending: %v", p)
	}
	if err := s.Allow(ctxFor(t), req.RequestID, nil, nil); !errors.Is(err, engine.ErrUnknownRequest) {
		t.Errorf("late answer: %v, want engine.ErrUnknownRequest", err)
	}
	if again := turn(t, s, "Carry on.", nil); !again.done.OK || again.done.Result != "next turn works" {
		t.Errorf("turn after the interrupt = %+v", again.done)
	}
	if exists(r.path("a.txt")) {
		t.Error("a late answer to a withdrawn request ran the command")
	}
}

// TestContractCompoundSuggestion pins down the suggestion the CLI attaches
// to a compound Bash command, which the prompt must show whole or put in
// the file: one addRules with a rule per part (a long curl as it is,
// "npm run *" for npm run build, the node command), saved to the project's
// local settings.
func TestContractCompoundSuggestion(t *testing.T) {
	curl := "curl -s https://docs.example.com/" + strings.Repeat("a", 220)
	r := newRig(t, true).serve(claudetest.Answer(bashUse(curl+" && npm run build && node scripts/x.js")), claudetest.Say("done"))
	s := r.start()
	var got []json.RawMessage
	turn(t, s, "Build.", func(req engine.ApprovalRequest) {
		got = req.Suggestions
		if err := s.Deny(ctxFor(t), req.RequestID, "no", false); err != nil {
			t.Fatal(err)
		}
	})
	want := `[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"` + curl + `"},{"toolName":"Bash","ruleContent":"npm run *"},` +
		`{"toolName":"Bash","ruleContent":"node scripts/x.js"}],"behavior":"allow","destination":"localSettings"}]`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("suggestions = %s\nwant %s", b, want)
	}
}
