package telegram

import (
	"context"
	"errors"
	"os/exec"
	"time"

	"github.com/untether/untether/runner"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// finish sends the final answer as a new message (edits don't notify) and
// reduces the progress message to a one-line summary.
func (t *turn) finish(ctx context.Context, tc runner.TurnCompleted, progress chan int) {
	b := t.a.b
	overBudget := tc.Subtype == "error_max_budget_usd" || tc.TerminalReason == "budget_exhausted"
	footer := view.FinalFooter(view.Footer{Cost: t.recordCost(tc), Duration: tc.Duration, Turns: tc.NumTurns,
		InTokens:  tc.Usage.InputTokens + tc.Usage.CacheReadInputTokens + tc.Usage.CacheCreationInputTokens,
		OutTokens: tc.Usage.OutputTokens, OK: tc.OK || overBudget})
	var parts []string
	switch {
	case tc.OK:
		t.state = "done"
		parts = view.FinalParts(tc.Result, footer, render.Message)
	case overBudget:
		t.state = "stopped at the spending limit"
		parts = []string{view.TurnBudgetStopped(b.cfg.MaxTurnUSD, footer)}
	case tc.TerminalReason == "aborted_streaming" || tc.TerminalReason == "aborted_tools" || t.cancelled:
		t.state = "cancelled"
		parts = []string{view.CancelledText}
	default:
		t.state = "failed"
		parts = []string{view.ErrorText(view.TurnError{What: "The turn failed", Detail: b.redact(tc.ErrorText),
			Hint: "Send another message to continue; the session is kept."})}
	}
	// A progress edit still queued would spend the chat's budget between
	// two parts of the answer; the summary edit replaces it anyway.
	if t.progressID != 0 {
		b.out.Drop(t.progressKey())
	}
	t.deliver(ctx, parts)
	t.close(ctx, progress, tc.OK)
}

// recordCost returns what the turn cost: the increase of the session's
// running total (result.total_cost_usd keeps growing across turns and
// --resume), which is also added to the chat's total and today's spend.
func (t *turn) recordCost(tc runner.TurnCompleted) float64 {
	a, b := t.a, t.a.b
	id := tc.SessionID
	if conn := a.liveConn(); id == "" && conn != nil {
		id = conn.SessionID()
	}
	if id == "" {
		if tc.TotalCostUSD > 0 {
			b.log.Warn("a turn's cost was not counted: no session id", "chat_id", a.place.ChatID, "total_usd", tc.TotalCostUSD)
		}
		return 0
	}
	cost, err := b.store.RecordTurnCost(a.key, id, tc.TotalCostUSD, time.Now())
	if err != nil {
		b.log.Warn("could not record the turn's cost", "chat_id", a.place.ChatID, "session_id", id, "err", err)
		return 0
	}
	if b.cfg.MaxTurnUSD > 0 && cost > 0 {
		// The CLI applies --max-budget-usd to everything a process spent
		// since it started, not to one turn (docs/protocol.md): the next
		// turn gets a process of its own, resuming the session, so its
		// limit is whole again.
		a.restartAfterTurn()
	}
	return cost
}

// deliver sends the final parts in order; a final is never dropped (the
// outbox retries until delivered or the bot stops).
func (t *turn) deliver(ctx context.Context, parts []string) {
	a, b := t.a, t.a.b
	t.answered.Store(true)
	for i, p := range parts {
		replyTo := 0
		if i == 0 {
			replyTo = t.qp.MessageID
		}
		_, err := b.send(ctx, a.place, replyTo, p, nil, outbox.High)
		if isTooLong(err) {
			// Parts are cut by what Telegram is known to count; should it
			// count markup after all, cut by HTML length, which it never
			// refuses, rather than lose the part.
			b.log.Warn("telegram refused an answer part as too long, sending it in smaller parts",
				"chat_id", a.place.ChatID, "part", i, "err", err)
			for _, q := range render.Split(p, render.MaxMessage) {
				if _, err = b.send(ctx, a.place, replyTo, q, nil, outbox.High); err != nil {
					break
				}
				replyTo = 0
			}
		}
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			b.log.Error("final answer not delivered", "chat_id", a.place.ChatID, "part", i, "err", err)
		}
	}
}

// errTurnCancelled: the turn was cancelled before Claude got its prompt
// (while it waited for a Claude slot, or was starting).
var errTurnCancelled = errors.New("the turn was cancelled before Claude started it")

// finishStart ends a turn whose prompt never reached Claude.
func (t *turn) finishStart(ctx context.Context, progress chan int, err error) {
	if errors.Is(err, errTurnCancelled) {
		t.cancelled = true
		t.state = "cancelled"
		t.deliver(ctx, []string{view.CancelledBeforeStartText})
		t.close(ctx, progress, false)
		return
	}
	t.finishError(ctx, progress, startErrorView(err))
}

func startErrorView(err error) view.TurnError {
	var ee *exec.Error
	if errors.As(err, &ee) || errors.Is(err, exec.ErrNotFound) {
		return view.TurnError{What: "Claude Code was not found", Detail: err.Error(),
			Hint: "Install Claude Code (npm install -g @anthropic-ai/claude-code) or set [claude] binary in the config."}
	}
	return view.TurnError{What: "Could not start Claude", Detail: err.Error(), Hint: "Check the bot's log; the next message will try again."}
}

func (t *turn) finishError(ctx context.Context, progress chan int, e view.TurnError) {
	// Error texts quote commands, paths and URLs: redact before the view
	// shortens them.
	b := t.a.b
	e.Detail, e.StderrTail = b.redact(e.Detail), b.redact(e.StderrTail)
	t.state = "failed"
	t.deliver(ctx, []string{view.ErrorText(e)})
	t.close(ctx, progress, false)
}

// finishStopped tells the user the bot is going down mid-turn: an edit
// alone would not notify them.
func (t *turn) finishStopped(ctx context.Context, progress chan int) {
	t.deliver(ctx, []string{"⏹ The bot is stopping, so this turn was interrupted. Send your message again once it is back; the session is kept."})
	t.close(ctx, progress, false)
}

// close turns the progress message into its summary and forgets it.
func (t *turn) close(ctx context.Context, progress chan int, ok bool) {
	a, b := t.a, t.a.b
	// No request outlives its turn (the runner forgets them then too): a
	// prompt left with buttons, after a crash or a request the CLI withdrew,
	// would take presses that can no longer reach Claude.
	if n, err := b.broker.CancelSession(ctx, a.key, "the turn ended"); n > 0 {
		b.log.Debug("approvals left at the end of the turn were cancelled", "chat_id", a.place.ChatID, "count", n, "err", err)
	}
	if t.progressID == 0 && progress != nil {
		t.progressID = <-progress // sent at turn start; wait for its id
	}
	if t.progressID == 0 {
		return
	}
	summary := view.ProgressSummary(t.view(), ok)
	// Same key as the progress edits: a queued edit is superseded.
	_ = b.edit(ctx, a.place.ChatID, t.progressID, summary, nil, outbox.Normal, t.progressKey(), nil)
	if err := b.store.RemoveLive(a.place.ChatID, t.progressID); err != nil {
		b.log.Warn("could not forget progress message", "chat_id", a.place.ChatID, "err", err)
	}
}
