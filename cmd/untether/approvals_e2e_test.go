package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// Contract tests of the approval flows: the real bot binary, the real
// Claude Code CLI, a fake Telegram and a scripted fake Anthropic API.
// They skip without UNTETHER_TEST_CLAUDE.

const e2eWait = 60 * time.Second

// realClaudeWith is realClaude with more TOML sections appended.
func realClaudeWith(t *testing.T, sections string, steps ...claudetest.Step) (*e2eEnv, *claudetest.API) {
	t.Helper()
	e, api := realClaude(t, steps...)
	f, err := os.OpenFile(e.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n" + sections); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return e, api
}

// awaitButtons waits for a message newer than after with a button
// labelled label that contains text.
func (e *e2eEnv) awaitButtons(t *testing.T, label, text string, after int) tgtest.Message {
	t.Helper()
	return e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool {
		return m.ID > after && hasButton(m, label) && answerHas(m, text)
	})
}

// press presses label on m and waits for the toast.
func (e *e2eEnv) press(t *testing.T, m tgtest.Message, label string) string {
	t.Helper()
	cq := e.tg.PressButton(e.user, e.chat, m.ID, buttonData(t, m, label))
	var a tgtest.CallbackAnswer
	e.tg.Await(e2eWait, "the toast of "+label, func() bool {
		var ok bool
		a, ok = e.tg.CallbackAnswer(cq)
		return ok
	})
	return a.Text
}

func (e *e2eEnv) awaitText(t *testing.T, text string) tgtest.Message {
	t.Helper()
	return e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool { return answerHas(m, text) })
}

// toolResults are the tool results of the API's latest request, in order.
func toolResults(api *claudetest.API) []claudetest.ToolResult {
	reqs := api.Requests()
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1].ToolResults()
}

func TestContractBotAlwaysAllowNotAskedAgain(t *testing.T) {
	bash := map[string]any{"command": "touch always.txt", "description": "Create always.txt"}
	e, api := realClaude(t,
		claudetest.Answer(claudetest.ToolUse("Bash", bash)),
		claudetest.Answer(claudetest.ToolUse("Bash", bash)), // the identical request again
		claudetest.Say("Both done."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Create always.txt twice")
	prompt := e.awaitButtons(t, "Always allow", "touch always.txt", 0)
	t.Logf("prompt with suggestions:\n%s", prompt.Text)
	if !strings.Contains(prompt.Text, "always allow Bash: touch always.txt") {
		t.Errorf("the prompt should say what Always allow saves:\n%s", prompt.Text)
	}
	if got := e.press(t, prompt, "Always allow"); got != "Always allowed" {
		t.Errorf("toast = %q", got)
	}
	e.awaitText(t, "Both done.")
	asked := 0
	for _, m := range e.tg.Messages(e.chat.ID) {
		if answerHas(m, "touch always.txt") && answerHas(m, "wants to run") {
			asked++
		}
	}
	if asked != 1 {
		t.Errorf("the command was asked about %d times, want once", asked)
	}
	trs := toolResults(api)
	if len(trs) != 2 || trs[0].IsError || trs[1].IsError {
		t.Errorf("both runs should have succeeded: %+v", trs)
	}
	// The outcome is housekeeping: it may come after the answer.
	e.tg.Await(60*time.Second, "the prompt showing the outcome", func() bool {
		edited, _ := e.tg.Message(e.chat.ID, prompt.ID)
		return len(edited.Keyboard) == 0 && strings.Contains(edited.Text, "Always allowed by @op")
	})
	// The CLI saved the rule where the prompt said it would.
	local, err := os.ReadFile(filepath.Join(e.dir, "work", ".claude", "settings.local.json"))
	if err != nil || !strings.Contains(string(local), "touch always.txt") {
		t.Errorf("project local settings = %q, %v", local, err)
	}
}

const e2ePlan = "# Plan\n\n1. Write result.txt with the word built.\n"

var e2eOutline = "Outline of the plan, step by step. Step 1: create result.txt in the project root. " +
	"Step 2: write the single word built into it, nothing else. Step 3: stop and report. " +
	"Files touched: result.txt only. Risks: none, the file does not exist yet."

func TestContractBotPlanOutlineCooldownApprove(t *testing.T) {
	var planFile atomic.Value
	e, api := realClaudeWith(t, "[approvals]\nplan_mode = \"on\"\n\n[cooldown]\nbase = \"5s\"\nmax = \"10s\"\n")
	result := filepath.Join(e.dir, "work", "result.txt")
	api.Append(
		claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
			path := claudetest.PlanFilePath(req)
			planFile.Store(path)
			if path == "" {
				return claudetest.Err(400, "contract test: the CLI named no plan file")
			}
			return claudetest.Answer(claudetest.Text("Writing the plan."),
				claudetest.ToolUse("Write", map[string]any{"file_path": path, "content": e2ePlan}))
		}),
		claudetest.Answer(claudetest.ToolUse("ExitPlanMode", map[string]any{})), // paused by the user
		claudetest.Answer(claudetest.ToolUse("ExitPlanMode", map[string]any{})), // at once: cooldown
		claudetest.StepFunc(func(*claudetest.Request) claudetest.Reply {
			// The model takes longer than the 5 s window. The window is
			// wide so that the immediate retry lands inside it even on a
			// loaded machine.
			time.Sleep(5500 * time.Millisecond)
			return claudetest.Answer(claudetest.Text(e2eOutline), claudetest.ToolUse("ExitPlanMode", map[string]any{}))
		}),
		claudetest.Answer(claudetest.ToolUse("Write", map[string]any{"file_path": result, "content": "built\n"})),
		claudetest.Say("Plan carried out."),
	)
	e.start(t)
	id := e.tg.SendMessage(e.user, e.chat, "Plan result.txt, then write it.")
	progress := e.tg.AwaitMessage(e2eWait, e.chat.ID, func(m tgtest.Message) bool { return m.ReplyTo == id })

	first := e.awaitButtons(t, "Pause & Outline", "Claude's plan", 0)
	t.Logf("plan prompt (real CLI):\n%s", first.Text)
	if !strings.Contains(first.Text, "Write result.txt with the word built.") {
		t.Errorf("the plan prompt should show the plan file's text:\n%s", first.Text)
	}
	if path, _ := planFile.Load().(string); path == "" || !strings.Contains(first.Text, filepath.Base(path)) {
		t.Errorf("the plan prompt should name the plan file %q:\n%s", path, first.Text)
	}
	if got := e.press(t, first, "Pause & Outline"); got != "Outlining plan…" {
		t.Errorf("toast = %q", got)
	}
	notice := e.awaitText(t, "plan cooldown")
	t.Logf("cooldown notice (real CLI):\n%s", notice.Text)

	second := e.awaitButtons(t, "Approve", "Claude's plan", first.ID)
	if got := e.press(t, second, "Approve"); got != "Approved" {
		t.Errorf("toast = %q", got)
	}
	// After the approval the CLI leaves plan mode; the project write is asked.
	write := e.awaitButtons(t, "Approve", "result.txt", second.ID)
	e.tg.Await(e2eWait, "the progress footer to show the mode switch", func() bool {
		m, _ := e.tg.Message(e.chat.ID, progress.ID)
		return answerHas(m, "· default")
	})
	e.press(t, write, "Approve")
	e.awaitText(t, "Plan carried out.")

	if got, err := os.ReadFile(result); err != nil || string(got) != "built\n" {
		t.Errorf("result.txt = %q, %v", got, err)
	}
	var exits []claudetest.ToolResult
	reqs := api.Requests()
	last := reqs[len(reqs)-1]
	ids := map[string]bool{}
	for _, m := range last.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_use" && b.Name == "ExitPlanMode" {
				ids[b.ID] = true
			}
		}
	}
	for _, tr := range last.ToolResults() {
		if ids[tr.ToolUseID] {
			exits = append(exits, tr)
		}
	}
	if len(exits) != 3 {
		t.Fatalf("ExitPlanMode results = %+v", exits)
	}
	for i, want := range []string{"visible step-by-step outline", "Plan approval is paused"} {
		if !exits[i].IsError || !strings.Contains(exits[i].Content, want) {
			t.Errorf("ExitPlanMode #%d result = %+v, want a denial saying %q", i+1, exits[i], want)
		}
	}
	if exits[2].IsError {
		t.Errorf("the outlined plan was not approved: %+v", exits[2])
	}
	t.Logf("the model read after the approval: %.160q", exits[2].Content)
}

func TestContractBotQuestionAnswers(t *testing.T) {
	ask := map[string]any{"questions": []any{
		map[string]any{"question": "Which colour should the button be?", "header": "Colour", "multiSelect": false,
			"options": []any{map[string]any{"label": "Red", "description": "Warm"}, map[string]any{"label": "Blue", "description": "Calm"}}},
		map[string]any{"question": "How big should it be?", "header": "Size", "multiSelect": false,
			"options": []any{map[string]any{"label": "Small", "description": "Compact"}, map[string]any{"label": "Medium", "description": "Default"}}},
	}}
	e, api := realClaude(t,
		claudetest.Answer(claudetest.ToolUse("AskUserQuestion", ask)),
		claudetest.Say("Noted your choices."),
	)
	e.start(t)
	e.tg.SendMessage(e.user, e.chat, "Ask me about the button")
	prompt := e.awaitButtons(t, "Blue", "Which colour should the button be?", 0)
	t.Logf("question prompt (real CLI):\n%s", prompt.Text)
	if got := e.press(t, prompt, "Blue"); got != "Next question" {
		t.Errorf("toast = %q", got)
	}
	var next tgtest.Message
	e.tg.Await(e2eWait, "the second question", func() bool {
		next, _ = e.tg.Message(e.chat.ID, prompt.ID)
		return hasButton(next, "Medium")
	})
	if got := e.press(t, next, "Other"); got != "Send your answer as a message" {
		t.Errorf("toast = %q", got)
	}
	e.tg.SendMessage(e.user, e.chat, "Extra large")
	e.awaitText(t, "Noted your choices.")
	trs := toolResults(api)
	if len(trs) != 1 || trs[0].IsError {
		t.Fatalf("tool results = %+v", trs)
	}
	for _, want := range []string{`"Which colour should the button be?"="Blue"`, `"How big should it be?"="Extra large"`} {
		if !strings.Contains(trs[0].Content, want) {
			t.Errorf("the model did not get %s: %q", want, trs[0].Content)
		}
	}
	t.Logf("the model read: %q", trs[0].Content)
	edited, _ := e.tg.Message(e.chat.ID, prompt.ID)
	if len(edited.Keyboard) != 0 || !strings.Contains(edited.Text, "Answered by @op") {
		t.Errorf("prompt after the answers: %q %v", edited.Text, edited.Keyboard)
	}
}
