package telegram_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// Helpers of the approval tests: requests a script can ask, and a user's
// view of the prompts (buttons, toasts, edits).

func rawJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toolReq is a can_use_tool request as the runner reports it.
func toolReq(t testing.TB, id, tool string, input map[string]any, suggestions ...json.RawMessage) engine.ApprovalRequest {
	return engine.ApprovalRequest{RequestID: id, Kind: requestKinds[tool], ToolName: tool, DisplayName: tool,
		Input: rawJSON(t, input), Suggestions: suggestions, ToolUseID: "toolu_" + id}
}

// requestKinds are the kinds the runner gives requests for Claude Code's
// tools that approvals treats apart (runner/kinds.go); others are tools.
var requestKinds = map[string]engine.RequestKind{
	"AskUserQuestion": engine.RequestQuestion, "ExitPlanMode": engine.RequestPlan,
	"Bash": engine.RequestCommand, "Edit": engine.RequestFileChange, "Write": engine.RequestFileChange,
}

// bashRule is the suggestion the CLI attaches to a Bash request.
func bashRule(cmd string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":%q}],"behavior":"allow","destination":"localSettings"}`, cmd))
}

const acceptEdits = `{"type":"setMode","mode":"acceptEdits","destination":"session"}`

// decisionWord summarises a decision for the final answer of a script.
func decisionWord(d enginetest.Decision) string {
	switch {
	case d.Allow:
		return "allowed"
	case d.Interrupted:
		return "interrupted"
	case d.Closed:
		return "closed"
	case d.Withdrawn:
		return "withdrawn"
	}
	return "denied"
}

// findButton returns the callback data of the button whose text contains label.
func findButton(m tgtest.Message, label string) (string, bool) {
	for _, row := range m.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, label) {
				return b.CallbackData, true
			}
		}
	}
	return "", false
}

// buttonStyles maps each button's label, without its emoji, to its style.
func buttonStyles(m tgtest.Message) map[string]string {
	out := map[string]string{}
	for _, row := range m.Keyboard {
		for _, b := range row {
			label := b.Text
			if _, rest, ok := strings.Cut(label, " "); ok {
				label = rest
			}
			out[label] = b.Style
		}
	}
	return out
}

func buttonTexts(m tgtest.Message) [][]string {
	var out [][]string
	for _, row := range m.Keyboard {
		var r []string
		for _, b := range row {
			r = append(r, b.Text)
		}
		out = append(out, r)
	}
	return out
}

// awaitPrompt waits for a bot message in chat that has a button labelled
// label and contains text.
func (h *harness) awaitPrompt(chatID int64, label, text string) tgtest.Message {
	h.t.Helper()
	return h.tg.AwaitMessage(wait, chatID, func(m tgtest.Message) bool {
		_, ok := findButton(m, label)
		return ok && strings.Contains(m.Text, text)
	})
}

// press has from press the button labelled label on m and returns the
// callback query id.
func (h *harness) press(from tgtest.User, chat tgtest.Chat, m tgtest.Message, label string) string {
	h.t.Helper()
	data, ok := findButton(m, label)
	if !ok {
		h.t.Fatalf("no %q button on message %d: %v", label, m.ID, buttonTexts(m))
	}
	return h.tg.PressButton(from, chat, m.ID, data)
}

// toast waits for the bot's answer to a press and returns its text.
func (h *harness) toast(cq string) string {
	h.t.Helper()
	var a tgtest.CallbackAnswer
	h.tg.Await(wait, "the answer to press "+cq, func() bool {
		var ok bool
		a, ok = h.tg.CallbackAnswer(cq)
		return ok
	})
	return a.Text
}

// awaitResolved waits until message id in chat contains want and has no
// buttons left.
func (h *harness) awaitResolved(chatID int64, id int, want string) tgtest.Message {
	h.t.Helper()
	var m tgtest.Message
	h.tg.Await(wait, fmt.Sprintf("message %d to show %q without buttons", id, want), func() bool {
		m, _ = h.tg.Message(chatID, id)
		return len(m.Keyboard) == 0 && strings.Contains(m.Text, want)
	})
	return m
}

// awaitKeyboard waits until message id shows a button labelled label.
func (h *harness) awaitKeyboard(chatID int64, id int, label string) tgtest.Message {
	h.t.Helper()
	var m tgtest.Message
	h.tg.Await(wait, fmt.Sprintf("message %d to show a %q button", id, label), func() bool {
		m, _ = h.tg.Message(chatID, id)
		_, ok := findButton(m, label)
		return ok
	})
	return m
}

// progressFor waits for the progress message of the user's message id.
func (h *harness) progressFor(chatID int64, id int) tgtest.Message {
	h.t.Helper()
	return h.tg.AwaitMessage(wait, chatID, func(m tgtest.Message) bool { return m.ReplyTo == id })
}

// answersOf returns the answers written to the i-th started session.
func (h *harness) answersOf(i int) []enginetest.Answer { return h.eng.session(i).Answers() }

// onlyAnswer asserts that exactly one answer was written and returns it.
func (h *harness) onlyAnswer(i int) enginetest.Answer {
	h.t.Helper()
	as := h.answersOf(i)
	if len(as) != 1 {
		h.t.Fatalf("want exactly one answer written to claude, got %d: %+v", len(as), as)
	}
	return as[0]
}
