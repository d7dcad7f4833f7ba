package runner

import (
	"fmt"
	"github.com/untether/untether/engine"
	"math"
	"testing"

	"github.com/untether/untether/runner/claudetest"
)

// resumeAfterClose closes s and starts a new process resuming its session.
func (r *rig) resumeAfterClose(t *testing.T, s *Session, mut ...func(*Options)) *Session {
	t.Helper()
	id := s.SessionID()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	waitExit(t, s)
	return r.start(append([]func(*Options){func(o *Options) { o.Resume = id }}, mut...)...)
}

// total_cost_usd is the session's running total: three equal turns, the
// third in a new process after --resume, report about c, 2c and 3c, with
// the same session id throughout. The bot's turn cost is the increase.
func TestContractCostIsRunningTotal(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("one"), claudetest.Say("two"), claudetest.Say("three"))
	s := r.start()
	var totals []float64
	var ids []string
	for _, p := range []string{"first", "second"} {
		tc := turn(t, s, p, nil).done
		totals, ids = append(totals, tc.SessionCostUSD), append(ids, tc.SessionID)
	}
	s = r.resumeAfterClose(t, s)
	tc := turn(t, s, "third", nil).done
	totals, ids = append(totals, tc.SessionCostUSD), append(ids, tc.SessionID)
	t.Logf("running totals %v, session ids %v", totals, ids)

	if ids[0] == "" || ids[1] != ids[0] || ids[2] != ids[0] {
		t.Errorf("session ids %q: --resume must keep the id", ids)
	}
	costs := []float64{totals[0], totals[1] - totals[0], totals[2] - totals[1]}
	t.Logf("turn costs (increases) %v", costs)
	for i, c := range costs {
		// The turns are alike (a few more input tokens each time): each
		// costs about the first. Were the total per process, the third
		// would be about -c; were it per turn, the second about 0.
		if c <= 0 || math.Abs(c-costs[0]) > 0.1*costs[0] {
			t.Errorf("turn %d cost %v, want about %v (totals %v)", i+1, c, costs[0], totals)
		}
	}
}

// --max-budget-usd counts the spend of the process since it started, across
// its turns (not one turn, not the session's running total), and is checked
// after each model call: the call that reaches it runs, then the turn ends
// with error_max_budget_usd; later turns of the process fail at once
// without calling the model. A new process (--resume) starts from 0.
func TestContractMaxBudget(t *testing.T) {
	var steps []claudetest.Step
	for i := range 6 {
		steps = append(steps, claudetest.Say(fmt.Sprint("answer ", i)))
	}
	r := newRig(t, true).serve(steps...)
	s := r.start()
	c := turn(t, s, "measure a turn", nil).done.SessionCostUSD
	limit := math.Round(1.5*c*1e4) / 1e4 // room for one turn, not two
	budget := func(o *Options) { o.MaxBudgetUSD = limit }
	s = r.resumeAfterClose(t, s, budget)

	first := turn(t, s, "within the budget", nil).done
	if !first.OK {
		t.Fatalf("a turn within the budget failed: %+v", first)
	}
	calls := len(r.api.Requests())
	over := turn(t, s, "over the budget", nil).done
	t.Logf("limit %v, turn cost about %v: %+v", limit, c, over)
	wantErr := fmt.Sprintf("Reached maximum budget ($%s)", fmt.Sprint(limit))
	if over.OK || over.Outcome != engine.OutcomeBudgetStop || over.Reason != "error_max_budget_usd/budget_exhausted" ||
		over.ErrorText != wantErr || over.Result != "" {
		t.Errorf("turn over the budget = %+v, want error_max_budget_usd / budget_exhausted / %q", over, wantErr)
	}
	if n := len(r.api.Requests()); n != calls+1 {
		t.Errorf("the turn over the budget made %d model calls, want 1 (checked after the call)", n-calls)
	}
	if over.SessionCostUSD <= first.SessionCostUSD {
		t.Errorf("the stopped turn's call is not in the total: %v then %v", first.SessionCostUSD, over.SessionCostUSD)
	}

	calls = len(r.api.Requests())
	again := turn(t, s, "same process", nil).done
	if again.Outcome != engine.OutcomeBudgetStop || !saidReason(again, "error_max_budget_usd") || len(r.api.Requests()) != calls || again.SessionCostUSD != over.SessionCostUSD {
		t.Errorf("a later turn of the same process = %+v (%d new calls), want refused at once", again, len(r.api.Requests())-calls)
	}

	s = r.resumeAfterClose(t, s, budget)
	if fresh := turn(t, s, "new process", nil).done; !fresh.OK || fresh.SessionCostUSD <= over.SessionCostUSD {
		t.Errorf("a new process under the same limit = %+v, want a normal turn with the total still growing", fresh)
	}
}
