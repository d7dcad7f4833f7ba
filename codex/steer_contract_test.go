package codex_test

import (
	"context"
	"testing"

	"github.com/untether/untether/engine"
)

// A message steered into a running turn (turn/steer, here while Codex
// waits for an approval) reaches the model's next request in that turn;
// Codex says it took it by the bot's id (PromptStarted) and the turn ends
// once.
func TestSteerReachesTheNextModelRequest(t *testing.T) {
	r := newRig(t, nil)
	c := r.start(t, "")
	send(t, c, "run: echo a > a.txt")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	st, ok := c.(engine.Steerer)
	if !ok {
		t.Fatal("a Codex Conn is no engine.Steerer")
	}
	if err := st.Steer(context.Background(), "steer-1", "also mind the bananas"); err != nil {
		t.Fatalf("steer: %v", err)
	}
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
		t.Fatal(err)
	}
	ps := next[engine.PromptState](t, c, &seen)
	if ps != (engine.PromptState{ID: "steer-1", Stage: engine.PromptStarted}) {
		t.Errorf("prompt state = %+v", ps)
	}
	tc := next[engine.TurnCompleted](t, c, &seen)
	if tc.Outcome != engine.OutcomeDone {
		t.Errorf("turn = %+v", tc)
	}
	reqs := r.api.Requests()
	if len(reqs) < 2 || reqs[0].Carries("bananas") || !reqs[1].Carries("bananas") {
		t.Errorf("the steered text is not in the model's next request (%d requests)", len(reqs))
	}
	t.Logf("%d model requests; the answer: %q", len(reqs), tc.Result)
	// No turn runs: nothing to steer into.
	if err := st.Steer(context.Background(), "steer-2", "late"); err == nil {
		t.Error("a steer with no turn running was taken")
	}
}
