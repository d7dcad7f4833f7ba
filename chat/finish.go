package chat

import (
	"context"
	"errors"
	"os/exec"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
)

// finish ends a turn the agent completed: what it cost and changed, how it
// ended, then the frontend shows the answer and closes the turn's
// messages.
func (t *turn) finish(ctx context.Context, tc engine.TurnCompleted) {
	b := t.a.c
	overBudget := stoppedAtTurnLimit(tc)
	f := Final{Result: tc.Result, Cost: t.recordCost(tc), Duration: tc.Duration, Turns: tc.NumTurns,
		InTokens:  tc.Usage.InputTokens + tc.Usage.CacheReadInputTokens + tc.Usage.CacheCreationInputTokens,
		OutTokens: tc.Usage.OutputTokens, OK: tc.OK || overBudget, Changes: t.changes(ctx), Desk: t.deskLine(tc.SessionID),
		ContextTokens: tc.ContextTokens, ContextWindow: tc.ContextWindow, MaxTurnUSD: b.cfg.MaxTurnUSD,
		Overrun: t.overrun, Engine: t.a.machine().Offered()}
	limited := t.limitStop(tc)
	switch {
	case tc.OK:
		t.st.Phase = turnstate.PhaseDone
		f.Outcome = OutcomeDone
		var rewinds bool
		f.Undo, rewinds = t.undoOffer(ctx)
		f.NoUndo = rewinds && f.Undo == nil && f.Changes.Files > 0
	case overBudget:
		t.st.Phase = turnstate.PhaseBudgetStopped
		f.Outcome = OutcomeBudgetStop
		f.Anyway = t.offerAnyway(OverTurnCap)
	case limited:
		t.st.Phase = turnstate.PhaseLimitStopped
		f.Outcome, f.Limit = OutcomeLimitStop, t.st.Limit
	case tc.Outcome == engine.OutcomeCancelled || t.cancelled:
		t.st.Phase = turnstate.PhaseCancelled
	default:
		t.st.Phase = turnstate.PhaseFailed
		b.log.Info("the turn failed", "chat_id", t.a.place.ChatID, "outcome", tc.Outcome, "reason", tc.Reason)
		f.Outcome, f.Error = OutcomeFailed, tc.ErrorText
	}
	t.answered.Store(true)
	if t.st.Phase == turnstate.PhaseCancelled {
		t.v.Cancelled(ctx, false)
	} else {
		t.v.Answer(ctx, f)
	}
	t.close(ctx, tc.OK)
	t.a.markStore(ctx, tc.SessionID)
}

// finishStart ends a turn whose prompt never reached the agent.
func (t *turn) finishStart(ctx context.Context, err error) {
	if errors.Is(err, errTurnCancelled) {
		t.cancelled = true
		t.st.Phase = turnstate.PhaseCancelled
		t.answered.Store(true)
		t.v.Cancelled(ctx, true)
		t.close(ctx, false)
		return
	}
	t.finishError(ctx, startFailure(err))
}

func startFailure(err error) Failure {
	var ee *exec.Error
	if errors.As(err, &ee) || errors.Is(err, exec.ErrNotFound) {
		return Failure{Kind: FailNotFound, Detail: err.Error()}
	}
	return Failure{Kind: FailStart, Detail: err.Error()}
}

// finishError ends a turn that failed outside the agent's own answer.
func (t *turn) finishError(ctx context.Context, f Failure) {
	// Error texts quote commands, paths and URLs: redact before a view
	// shortens them.
	b := t.a.c
	f.Detail, f.StderrTail = b.redact(f.Detail), b.redact(f.StderrTail)
	t.st.Phase = turnstate.PhaseFailed
	t.answered.Store(true)
	t.v.Failed(ctx, f)
	t.close(ctx, false)
}

// finishStopped tells the user the bot is going down mid-turn.
func (t *turn) finishStopped(ctx context.Context) {
	t.answered.Store(true)
	t.v.Stopping(ctx)
	t.close(ctx, false)
}

// close ends the turn: no request outlives it, and its messages say how it
// ended.
func (t *turn) close(ctx context.Context, ok bool) {
	a, b := t.a, t.a.c
	t.endWatch()
	// No request outlives its turn (the runner forgets them then too): a
	// prompt left with buttons, after a crash or a request the agent
	// withdrew, would take presses that can no longer reach it.
	if n, err := b.broker.CancelSession(ctx, a.key, ReasonTurnEnded); n > 0 {
		b.log.Debug("approvals left at the end of the turn were cancelled", "chat_id", a.place.ChatID, "count", n, "err", err)
	}
	t.v.Close(ctx, ok)
}

// exitFailure tells a turn that ended because the agent exited.
func exitFailure(e engine.Exited, redact func(string) string) Failure {
	var err string
	if e.Err != nil {
		err = redact(e.Err.Error())
	}
	return Failure{Kind: FailExited, ExitCode: e.ExitCode, Signal: e.Signal, Detail: err, StderrTail: redact(e.StderrTail)}
}
