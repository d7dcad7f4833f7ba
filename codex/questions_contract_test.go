package codex_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/untether/untether/codex/codextest"
	"github.com/untether/untether/engine"
)

// askColor makes the fake model call request_user_input with one
// question, then echo what Codex sent back ("done: " and the output).
func askColor(r codextest.Request) codextest.Reply {
	if out, ok := r.CallOutput(); ok {
		return codextest.Reply{Text: "done: " + out}
	}
	return codextest.Reply{Call: &codextest.Call{Name: "request_user_input", Arguments: `{"questions":[{"id":"color","header":"Color",` +
		`"question":"Which color?","options":[{"label":"Red (Recommended)","description":"warm"},{"label":"Blue","description":"cool"}]}]}`}}
}

// Codex's request_user_input reaches the bot as a question request in
// the shape of Claude's AskUserQuestion (the bot's question buttons show
// it), and the answer the bot allows it with reaches the model.
func TestUserInputQuestionIsAnswered(t *testing.T) {
	r := newRig(t, askColor)
	c := r.start(t, "")
	send(t, c, "pick a color")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	var in struct {
		Questions []struct {
			Question, Header string
			Options          []struct{ Label, Description string }
		}
	}
	if err := json.Unmarshal(req.Input, &in); err != nil || req.Kind != engine.RequestQuestion || len(in.Questions) != 1 ||
		in.Questions[0].Question != "Which color?" || in.Questions[0].Header != "Color" || len(in.Questions[0].Options) != 2 ||
		in.Questions[0].Options[1].Label != "Blue" {
		t.Fatalf("question request = %+v, input %s", req, req.Input)
	}
	answered := strings.TrimSuffix(string(req.Input), "}") + `,"answers":{"Which color?":"Blue"}}`
	if err := c.Allow(context.Background(), req.RequestID, json.RawMessage(answered), nil); err != nil {
		t.Fatal(err)
	}
	tc := next[engine.TurnCompleted](t, c, &seen)
	if tc.Outcome != engine.OutcomeDone || !strings.Contains(tc.Result, "Blue") {
		t.Errorf("turn = %+v: the model did not get the answer", tc)
	}
	t.Logf("the model got: %q", tc.Result)
}
