package approvals

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// From h_ask_user_question.
const questionsJSON = `{"questions": [{"question": "Which colour should the button be?", "header": "Colour", "options": [{"label": "Red", "description": "A red button"}, {"label": "Blue", "description": "A blue button"}], "multiSelect": false}]}`

// threeQuestions: single, multi, single; plus an extra field that must survive.
const threeQuestions = `{"questions":[
 {"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"r"},{"label":"Blue","description":"b"}],"multiSelect":false},
 {"question":"Which sizes?","header":"Sizes","options":[{"label":"S","description":""},{"label":"M","description":""},{"label":"L","description":""}],"multiSelect":true},
 {"question":"Which font?","header":"Font","options":[{"label":"Serif","description":""}],"multiSelect":false}
],"metadata":{"source":"test"}}`

// wantWithAnswers builds the expected updatedInput from the original input.
func wantWithAnswers(t *testing.T, input string, answers map[string]string) []byte {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal([]byte(input), &obj); err != nil {
		t.Fatal(err)
	}
	obj["answers"] = answers
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func optionToken(t *testing.T, v *QuestionView, label string) string {
	t.Helper()
	for _, o := range v.Options {
		if o.Label == label {
			return o.Token
		}
	}
	t.Fatalf("question %q has no option %q", v.Question, label)
	return ""
}

func TestSingleQuestion(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	p := mustPrompt(t, b, toolReq("q1", "AskUserQuestion", questionsJSON), r)
	v := p.Question
	if p.Kind != KindQuestion || v == nil || v.Index != 0 || v.Total != 1 || v.Header != "Colour" ||
		v.Question != "Which colour should the button be?" || len(v.Options) != 2 || v.MultiSelect ||
		v.DoneToken != "" || v.OtherToken == "" || v.DenyToken == "" || v.Options[1].Description != "A blue button" {
		t.Fatalf("view = %+v", v)
	}
	res := mustPress(t, b, optionToken(t, v, "Blue"))
	if res.Outcome != OutcomeAnswered || !res.Final() || res.Answers["Which colour should the button be?"] != "Blue" {
		t.Fatalf("result = %+v", res)
	}
	c := r.only(t)
	if !c.allow || c.id != "q1" || c.perms != nil {
		t.Fatalf("wrote %+v", c)
	}
	// The answer the real CLI accepted in h_ask_user_question.
	sameJSON(t, c.input, []byte(`{"questions": [{"question": "Which colour should the button be?", "header": "Colour", "options": [{"label": "Red", "description": "A red button"}, {"label": "Blue", "description": "A blue button"}], "multiSelect": false}], "answers": {"Which colour should the button be?": "Blue"}}`))
}

func TestQuestionSequence(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	p := mustPrompt(t, b, toolReq("q1", "AskUserQuestion", threeQuestions), r)
	first := p.Question

	res := mustPress(t, b, optionToken(t, first, "Red"))
	v := res.Question
	if res.Outcome != OutcomeNextQuestion || res.Final() || v == nil || v.Index != 1 || !v.MultiSelect ||
		v.DoneToken == "" || len(v.Answered) != 1 || v.Answered[0] != (Answer{"Which colour?", "Red"}) {
		t.Fatalf("after the first answer: %+v / %+v", res, v)
	}
	if _, err := b.Press(context.Background(), optionToken(t, first, "Blue"), owner, chatA); refusalKind(err) != Stale {
		t.Fatalf("a token of the answered question: %v, want Stale", err)
	}
	if _, err := b.Press(context.Background(), first.DenyToken, owner, chatA); refusalKind(err) != Stale {
		t.Fatalf("the first question's dismiss token: %v, want Stale", err)
	}

	// Done with nothing selected changes nothing.
	res = mustPress(t, b, v.DoneToken)
	if res.Outcome != OutcomeNothingChosen || res.Question.Index != 1 {
		t.Fatalf("empty Done: %+v", res)
	}
	for _, l := range []string{"S", "L", "S", "M"} { // S on, L on, S off, M on
		res = mustPress(t, b, optionToken(t, v, l))
		if res.Outcome != OutcomeToggled || res.Question.Options[res.Toggled].Label != l {
			t.Fatalf("toggle %s: %+v", l, res)
		}
	}
	sel := map[string]bool{}
	for _, o := range res.Question.Options {
		sel[o.Label] = o.Selected
	}
	if sel["S"] || !sel["M"] || !sel["L"] {
		t.Fatalf("selection = %v, want M and L", sel)
	}
	if len(r.all()) != 0 {
		t.Fatal("answered before the last question")
	}
	res = mustPress(t, b, v.DoneToken)
	v = res.Question
	if res.Outcome != OutcomeNextQuestion || v.Index != 2 || v.Answered[1].Answer != "M, L" {
		t.Fatalf("after Done: %+v / %+v", res, v)
	}

	// Other: the next text message in the session is the answer.
	res = mustPress(t, b, v.OtherToken)
	if res.Outcome != OutcomeAwaitingText || !res.Question.AwaitingText {
		t.Fatalf("Other: %+v", res)
	}
	if ok, _, _ := b.TakeText(context.Background(), chatB, owner, "100", "Comic Sans"); ok {
		t.Fatal("text from another chat was taken")
	}
	if ok, _, _ := b.TakeText(context.Background(), chatA, owner, "200", "Comic Sans"); ok {
		t.Fatal("text from another session was taken")
	}
	if ok, _, _ := b.TakeText(context.Background(), chatA, intrud, "100", "Comic Sans"); ok {
		t.Fatal("text from a stranger was taken")
	}
	ok, res, err := b.TakeText(context.Background(), chatA, owner, "100", "  Comic Sans \n")
	if !ok || err != nil || res.Outcome != OutcomeAnswered || res.UserID != owner || res.Request.RequestID != "q1" {
		t.Fatalf("TakeText = %v, %+v, %v", ok, res, err)
	}
	want := map[string]string{"Which colour?": "Red", "Which sizes?": "M, L", "Which font?": "Comic Sans"}
	c := r.only(t)
	if !c.allow || c.id != "q1" {
		t.Fatalf("wrote %+v", c)
	}
	sameJSON(t, c.input, wantWithAnswers(t, threeQuestions, want))
	if !strings.Contains(string(c.input), `"metadata"`) {
		t.Fatal("an original field was lost")
	}
	if ok, _, _ := b.TakeText(context.Background(), chatA, owner, "100", "more text"); ok {
		t.Fatal("text taken after the questions were answered")
	}
}

func TestQuestionOtherThenOption(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	const multi = `{"questions":[{"question":"Pick","header":"H","options":[{"label":"A"},{"label":"B"}],"multiSelect":true}]}`
	p := mustPrompt(t, b, toolReq("q1", "AskUserQuestion", multi), r)
	v := p.Question
	mustPress(t, b, v.OtherToken)
	mustPress(t, b, optionToken(t, v, "A")) // a toggle ends the wait for text
	if ok, _, _ := b.TakeText(context.Background(), chatA, owner, "100", "typed"); ok {
		t.Fatal("text taken after an option was pressed")
	}
	mustPress(t, b, v.OtherToken)
	ok, res, err := b.TakeText(context.Background(), chatA, owner, "100", "typed")
	if !ok || err != nil || res.Answers["Pick"] != "A, typed" {
		t.Fatalf("multi Other = %v, %+v, %v", ok, res, err)
	}
	sameJSON(t, r.only(t).input, wantWithAnswers(t, multi, map[string]string{"Pick": "A, typed"}))
}

func TestQuestionDismissAndBadInput(t *testing.T) {
	b, _ := newTestBroker(Config{})
	r := &fakeResponder{}
	p := mustPrompt(t, b, toolReq("q1", "AskUserQuestion", questionsJSON), r)
	res := mustPress(t, b, p.Question.DenyToken)
	c := r.only(t)
	if res.Outcome != OutcomeDenied || c.allow || c.message != msgQuestionsDismissed {
		t.Fatalf("dismiss: %+v wrote %+v", res, c)
	}

	for _, in := range []string{`{}`, `{"questions":[]}`, `{"questions":[{"question":""}]}`, `nope`} {
		r := &fakeResponder{}
		sub := mustSubmit(t, b, toolReq("bad", "AskUserQuestion", in), r)
		if !sub.Auto() || sub.Outcome != OutcomeDenied || r.only(t).message != msgBadQuestions {
			t.Fatalf("input %s: %+v", in, sub)
		}
	}
}

func TestQuestionProgressExtendsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, hook := newTestBroker(Config{Timeout: 10 * time.Minute})
		r := &fakeResponder{}
		p := mustPrompt(t, b, toolReq("q1", "AskUserQuestion", threeQuestions), r)
		time.Sleep(9 * time.Minute)
		res := mustPress(t, b, optionToken(t, p.Question, "Blue"))
		time.Sleep(9 * time.Minute)
		synctest.Wait()
		if len(r.all()) != 0 {
			t.Fatal("timed out although the user was answering")
		}
		mustPress(t, b, optionToken(t, res.Question, "S"))
		time.Sleep(10*time.Minute + time.Second)
		synctest.Wait()
		c := r.only(t)
		if c.allow || !strings.Contains(c.message, "did not answer in time") {
			t.Fatalf("wrote %+v", c)
		}
		if got := hook.all(); len(got) != 1 || got[0].Outcome != OutcomeTimedOut {
			t.Fatalf("hook got %+v", got)
		}
	})
}
