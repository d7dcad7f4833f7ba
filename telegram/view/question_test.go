package view

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
)

const twoQuestions = `{"questions": [
 {"question": "Which checks should run before merging?", "header": "Checks", "multiSelect": true, "options": [
  {"label": "Unit tests", "description": "go test ./... with -race"},
  {"label": "Lint", "description": "gofmt & go vet"},
  {"label": "Fuzz <short>", "description": "10 s per target"}]},
 {"question": "Which colour should the button be?", "header": "Colour", "multiSelect": false, "options": [
  {"label": "Red", "description": "A red button"},
  {"label": "Blue", "description": "A blue button"}]}]}`

func questionRequest() approvals.Request {
	return approvals.Request{RequestID: "q1", Kind: engine.RequestQuestion, ToolName: "AskUserQuestion", Input: json.RawMessage(twoQuestions),
		ChatID: chatID, SessionKey: "42", PlanMode: approvals.PlanOn}
}

// press presses the button labelled label and returns the broker's result.
func press(t *testing.T, b *approvals.Broker, kb Keyboard, label string) approvals.Result {
	t.Helper()
	for _, row := range kb {
		for _, btn := range row {
			if btn.Text == label {
				res, err := b.Press(context.Background(), strings.TrimPrefix(btn.Data, "q:"), userID, chatID)
				if err != nil {
					t.Fatalf("press %q: %v", label, err)
				}
				return res
			}
		}
	}
	t.Fatalf("no button %q in %v", label, kb)
	return approvals.Result{}
}

func TestQuestionMultiSelectGolden(t *testing.T) {
	p, b, now := submit(t, questionRequest())
	if p.Kind != approvals.KindQuestion {
		t.Fatalf("kind %s", p.Kind)
	}
	parts := PromptText(p, workDir, now)
	if len(parts) != 1 || parts[0] != QuestionText(p.Question) {
		t.Errorf("PromptText of a question should be its QuestionText")
	}
	res := press(t, b, PromptKeyboard(p, "q:"), "Lint")
	if res.Outcome != approvals.OutcomeToggled {
		t.Fatalf("outcome %s", res.Outcome)
	}
	if got := PressToast(res, false); got != "Selected: Lint" {
		t.Errorf("toast %q, want %q", got, "Selected: Lint")
	}
	q := stableQuestion(res.Question)
	text, kb := QuestionText(q), QuestionKeyboard(q, "q:")
	checkHTML(t, "question", text)
	checkKeyboard(t, "question", kb)
	for _, s := range []string{"❓ <b>Checks</b> (1/2)", "✓ <b>Lint</b> — gofmt &amp; go vet", "1. <b>Unit tests</b>", "3. <b>Fuzz &lt;short&gt;</b>", "then press Done"} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
	golden(t, "question_multi", formatView([]string{text}, kb))

	// Done moves on to the second question, which shows the first answer.
	res = press(t, b, QuestionKeyboard(res.Question, "q:"), LabelDone)
	if res.Outcome != approvals.OutcomeNextQuestion {
		t.Fatalf("done: outcome %s", res.Outcome)
	}
	text = QuestionText(res.Question)
	checkHTML(t, "second question", text)
	for _, s := range []string{"(2/2)", "✓ <i>Which checks should run before merging?</i> → Lint", "Choose an option"} {
		if !strings.Contains(text, s) {
			t.Errorf("second question lacks %q:\n%s", s, text)
		}
	}
	for _, row := range QuestionKeyboard(res.Question, "q:") {
		for _, btn := range row {
			if btn.Text == LabelDone {
				t.Error("single-select question has a Done button")
			}
		}
	}

	// Other asks for a typed answer.
	res = press(t, b, QuestionKeyboard(res.Question, "q:"), LabelOther)
	if res.Outcome != approvals.OutcomeAwaitingText {
		t.Fatalf("other: outcome %s", res.Outcome)
	}
	text = QuestionText(stableQuestion(res.Question))
	checkHTML(t, "awaiting", text)
	if !strings.Contains(text, "Send your answer as a message") {
		t.Errorf("awaiting text does not ask for a message:\n%s", text)
	}
	// In a group the bot reads only what is addressed to it: ask for a reply.
	group := QuestionTextIn(stableQuestion(res.Question), true)
	checkHTML(t, "awaiting in a group", group)
	if !strings.Contains(group, "Reply to this message") || strings.Contains(group, "as a message") {
		t.Errorf("group awaiting text should ask for a reply:\n%s", group)
	}
	golden(t, "question_awaiting", formatView([]string{text}, QuestionKeyboard(stableQuestion(res.Question), "q:")))
}

func TestQuestionNasty(t *testing.T) {
	long := strings.Repeat("<&\"😀", 3000)
	var opts []approvals.OptionView
	for i := 0; i < 60; i++ {
		opts = append(opts, approvals.OptionView{Label: long, Description: long, Token: "t", Selected: i%2 == 0})
	}
	q := &approvals.QuestionView{Total: 3, Index: 2, Question: long, Header: long, MultiSelect: true, Options: opts,
		DoneToken: "d", OtherToken: "o", DenyToken: "x", Answered: []approvals.Answer{{Question: long, Answer: long}, {Question: long, Answer: long}}}
	text := QuestionText(q)
	checkHTML(t, "nasty question", text)
	if !strings.Contains(text, "then press Done") {
		t.Error("the instruction was cut off")
	}
	kb := QuestionKeyboard(q, "q:")
	checkKeyboard(t, "nasty question", kb)
	if len(kb) != 60+2 {
		t.Errorf("%d rows, want 62", len(kb))
	}
	checkHTML(t, "nil question", QuestionText(nil))
	if QuestionKeyboard(nil, "q:") != nil {
		t.Error("nil question has a keyboard")
	}
}
