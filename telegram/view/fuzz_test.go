package view

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/telegram/render"
)

// FuzzPromptText feeds tool prompts (and plans) arbitrary tool names, inputs
// and extras: the text must always be one valid message for a tool, valid
// parts for a plan, and never panic.
func FuzzPromptText(f *testing.F) {
	files, _ := filepath.Glob("testdata/requests/*.json")
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var r struct {
			ToolName    string          `json:"tool_name"`
			Input       json.RawMessage `json:"input"`
			Description string          `json:"description"`
			BlockedPath string          `json:"blocked_path"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			f.Fatal(err)
		}
		f.Add(r.ToolName, []byte(r.Input), r.Description, r.BlockedPath, "always allow Bash: x", uint8(0))
	}
	f.Add("Edit", []byte(`{"file_path":"/w/a","old_string":"a\n<b>\n","new_string":"a\n&c\n"}`), "", "/w/a", "", uint8(0))
	f.Add("ExitPlanMode", []byte(`{"plan":"# P\n\n1. <x> & y"}`), "", "", "", uint8(1))
	f.Add("Write", []byte(`{"file_path":"/w/b","content":"\u0000\r\n😀\n"}`), "d", "", "", uint8(0))
	f.Fuzz(func(t *testing.T, tool string, input []byte, desc, blocked, always string, kind uint8) {
		p := &approvals.Prompt{
			Kind:     approvals.KindTool,
			Request:  approvals.Request{ToolName: tool, Input: input, Description: desc, BlockedPath: blocked},
			Actions:  []approvals.Action{{Kind: approvals.ActionApprove, Token: "t1"}, {Kind: approvals.ActionDeny, Token: "t2"}},
			Deadline: time.Unix(600, 0),
		}
		if always != "" {
			p.AlwaysAllow = []string{always, always}
		}
		if kind%2 == 1 {
			p.Kind = approvals.KindPlan
			p.Plan = string(input)
			p.PlanFile = blocked
		}
		parts := PromptText(p, "/w", time.Unix(0, 0))
		checkParts(t, "prompt", parts)
		if p.Kind == approvals.KindTool && len(parts) != 1 {
			t.Errorf("tool prompt in %d parts", len(parts))
		}
		checkKeyboard(t, "prompt", PromptKeyboard(p, "a:"))
		checkHTML(t, "outcome", OutcomeText(parts[len(parts)-1], Outcome{Kind: approvals.OutcomeApproved, By: desc}))
	})
}

// FuzzTexts puts one arbitrary string into every field of every other view.
func FuzzTexts(f *testing.F) {
	for _, s := range []string{"", "<b>", "&amp", "😀\x00\r\n", "a & b < c > \"d\"", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		acts := []Action{{Kind: "x", Title: s, Detail: s, State: Failed}, {Title: s, State: Running}}
		p := Progress{State: s, Actions: acts, Verbose: true, Model: s, PermissionMode: s, LastText: s, Queued: 1, Steps: 2}
		checkHTML(t, "progress", ProgressText(p))
		checkHTML(t, "summary", ProgressSummary(p, false))
		checkFinalParts(t, "final", FinalParts(s, FinalFooter(Footer{}), render.Limits{}))
		checkHTML(t, "error", ErrorText(TurnError{What: s, Detail: s, Hint: s, StderrTail: s}))
		q := &approvals.QuestionView{Question: s, Header: s, Options: []approvals.OptionView{{Label: s, Description: s, Token: "t"}},
			Answered: []approvals.Answer{{Question: s, Answer: s}}, OtherToken: "o", DenyToken: "d"}
		checkHTML(t, "question", QuestionText(q))
		checkKeyboard(t, "question", QuestionKeyboard(q, "q:"))
		checkHTML(t, "outcome", OutcomeText(s, Outcome{Kind: approvals.OutcomeCancelled, Reason: s, By: s}))
		checkHTML(t, "answered", OutcomeLine(Outcome{Kind: approvals.OutcomeAnswered, By: s, Answers: map[string]string{s: s}}))
		checkHTML(t, "auto", AutoNotice(s, s))
		checkHTML(t, "status", StatusText(Status{SessionID: s, Model: s, ModelSource: s, PermissionMode: s, PlanMode: s, WorkDir: s}))
		checkHTML(t, "help", HelpText(true, s))
	})
}
