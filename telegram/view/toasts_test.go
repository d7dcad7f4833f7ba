package view

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
)

// The toasts the broker used to write itself, now rendered from its
// outcome codes (the approvals tests asserted these texts before).
func TestPressToast(t *testing.T) {
	tool := approvals.Request{ToolName: "Bash"}
	question := approvals.Request{Kind: engine.RequestQuestion, ToolName: "AskUserQuestion"}
	opts := &approvals.QuestionView{Options: []approvals.OptionView{{Label: "Lint", Selected: true}, {Label: "Fuzz"}}}
	for _, c := range []struct {
		res   approvals.Result
		group bool
		want  string
	}{
		{approvals.Result{Outcome: approvals.OutcomeApproved, Request: tool}, false, "Approved"},
		{approvals.Result{Outcome: approvals.OutcomeDenied, Request: tool}, false, "Denied"},
		{approvals.Result{Outcome: approvals.OutcomeDenied, Request: question}, false, "Dismissed"},
		{approvals.Result{Outcome: approvals.OutcomeAlways, Request: tool}, false, "Always allowed"},
		{approvals.Result{Outcome: approvals.OutcomeOutline}, false, "Outlining plan…"},
		{approvals.Result{Outcome: approvals.OutcomeToggled, Question: opts, Toggled: 0}, false, "Selected: Lint"},
		{approvals.Result{Outcome: approvals.OutcomeToggled, Question: opts, Toggled: 1}, false, "Unselected: Fuzz"},
		{approvals.Result{Outcome: approvals.OutcomeNothingChosen}, false, "Choose at least one option, or Other"},
		{approvals.Result{Outcome: approvals.OutcomeAwaitingText}, false, "Send your answer as a message"},
		{approvals.Result{Outcome: approvals.OutcomeAwaitingText}, true, "Reply to the question with your answer"},
		{approvals.Result{Outcome: approvals.OutcomeNextQuestion}, false, "Next question"},
		{approvals.Result{Outcome: approvals.OutcomeAnswered}, false, "Answered"},
		{approvals.Result{Outcome: approvals.OutcomeFailed}, false, "Could not send the answers"},
	} {
		if got := PressToast(c.res, c.group); got != c.want {
			t.Errorf("PressToast(%s, group %v) = %q, want %q", c.res.Outcome, c.group, got, c.want)
		}
	}
}

func TestRefusalToast(t *testing.T) {
	for k, want := range map[approvals.RefusalKind]string{
		approvals.Stale:        "This request is no longer pending",
		approvals.Unauthorized: "You are not allowed to answer this",
		approvals.ForeignChat:  "This button belongs to another chat",
	} {
		if got := RefusalToast(k); got != want {
			t.Errorf("RefusalToast(%s) = %q, want %q", k, got, want)
		}
	}
}

func TestApprovers(t *testing.T) {
	as := []Approver{{ID: 1, Name: "@ada"}, {ID: 2, Name: "Bob <b>"}, {ID: 3}}
	line := ApproversLine(as)
	checkHTML(t, "approvers", line)
	if want := `Only @ada, Bob &lt;b&gt; or <a href="tg://user?id=3">user 3</a> may answer.`; !strings.Contains(line, want) {
		t.Errorf("ApproversLine = %q, want it to contain %q", line, want)
	}
	if ApproversLine(nil) != "" {
		t.Error("no approvers, no line")
	}
	if got := ToastNotApprover(as[:1]); got != "Only @ada may answer this prompt" {
		t.Errorf("toast = %q", got)
	}
	many := make([]Approver, 40)
	for i := range many {
		many[i] = Approver{ID: int64(1000000 + i)}
	}
	if got := ToastNotApprover(many); utf8.RuneCountInString(got) > 200 {
		t.Errorf("toast of %d runes, Telegram shows 200", utf8.RuneCountInString(got))
	}
}
