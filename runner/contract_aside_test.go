package runner

import (
	"strings"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/runner/claudetest"
)

// side_question while a turn runs: answered from a model call of its own,
// the turn goes on, and no later request of the conversation carries it.
func TestContractSideQuestion(t *testing.T) {
	const question = "what is 2+2?"
	r := newRig(t, true).serve(
		claudetest.StepFunc(func(req *claudetest.Request) claudetest.Reply {
			if ut := req.UserTexts(); strings.Contains(ut[len(ut)-1], question) {
				return claudetest.Say("four, aside")
			}
			return claudetest.Say("one two three four five").HangAfter(2)
		}),
		claudetest.Say("after"),
	)
	s := r.start(func(o *Options) { o.IncludePartial = true })
	if err := s.Send(ctxFor(t), "Talk."); err != nil {
		t.Fatal(err)
	}
	next[engine.Text](t, s)
	answer, err := s.Aside(ctxFor(t), question)
	if err != nil || answer != "four, aside" {
		t.Fatalf("aside = %q, %v", answer, err)
	}
	if !s.inTurn() {
		t.Error("the turn ended with the side question")
	}
	if err := s.Interrupt(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	runTurn(t, s, nil)
	if log := turn(t, s, "Go on.", nil); log.done.Result != "after" {
		t.Errorf("turn after = %+v", log.done)
	}
	if all := r.lastRequest().AllText(); strings.Contains(all, question) || strings.Contains(all, "four, aside") {
		t.Error("the conversation's next request carries the side question or its answer")
	}
}
