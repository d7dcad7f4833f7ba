package telegram

import (
	"context"
	"errors"
	"os/exec"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// finish sends the final answer as a new message (edits don't notify) and
// reduces the progress message to a one-line summary.
func (t *turn) finish(ctx context.Context, tc engine.TurnCompleted, progress chan int) {
	b := t.a.b
	overBudget := stoppedAtTurnLimit(tc)
	footer := view.FinalFooter(view.Footer{Cost: t.recordCost(tc), Duration: tc.Duration, Turns: tc.NumTurns,
		InTokens:  tc.Usage.InputTokens + tc.Usage.CacheReadInputTokens + tc.Usage.CacheCreationInputTokens,
		OutTokens: tc.Usage.OutputTokens, OK: tc.OK || overBudget, Changes: t.changes(ctx), Desk: t.deskLine(tc.SessionID),
		ContextTokens: tc.ContextTokens, ContextWindow: tc.ContextWindow})
	limitNotice, limited := t.limitStop(tc)
	var parts []string
	var rich string // the answer as a rich message (rich.go), or ""
	switch {
	case tc.OK:
		t.st.Phase = view.StateDone
		parts = view.FinalParts(tc.Result, footer, render.Message)
		rich = b.richAnswer(t.a.place.ChatID, tc.Result, footer)
	case overBudget:
		t.st.Phase = view.StateBudgetStopped
		parts = []string{view.TurnBudgetStopped(b.cfg.MaxTurnUSD, footer)}
	case limited:
		t.st.Phase = view.StateLimitStopped
		parts = []string{limitNotice}
	case tc.Outcome == engine.OutcomeCancelled || t.cancelled:
		t.st.Phase = view.StateCancelled
	default:
		t.st.Phase = view.StateFailed
		b.log.Info("the turn failed", "chat_id", t.a.place.ChatID, "outcome", tc.Outcome, "reason", tc.Reason)
		parts = []string{view.ErrorText(view.TurnFailed(b.redact(tc.ErrorText)))}
	}
	// A progress edit still queued would spend the chat's budget between
	// two parts of the answer; the summary edit replaces it anyway.
	if t.progressID != 0 {
		b.out.Drop(t.progressKey())
	}
	if t.st.Phase == view.StateCancelled {
		t.deliverCancelled(ctx, view.CancelledText)
	} else {
		t.deliverAnswer(ctx, rich, parts)
	}
	t.close(ctx, progress, tc.OK)
	t.a.markStore(ctx, tc.SessionID)
}

// deliver sends the final parts in order; a final is never dropped (the
// outbox retries until delivered or the bot stops).
func (t *turn) deliver(ctx context.Context, parts []string) { t.deliverAnswer(ctx, "", parts) }

// deliverAnswer is deliver with the answer's rich form first, when it has
// one: the parts go only if Telegram refuses it.
func (t *turn) deliverAnswer(ctx context.Context, rich string, parts []string) {
	a, b := t.a, t.a.b
	t.answered.Store(true)
	t.live.stop() // no draft may land after the answer: it would show again under it
	switch {
	case rich != "":
		t.live.bridgeAs(rich, true, b.out.Delay(a.place.ChatID))
	case len(parts) > 0:
		t.live.bridge(parts[0], b.out.Delay(a.place.ChatID))
	}
	if t.answeredAll {
		return // all of it reached Telegram before the restart (held.go)
	}
	if rich != "" && t.delivered == 0 && t.sendRichAnswer(ctx, rich) {
		if !t.undelivered {
			t.noteDelivered(1, true)
		}
		return
	}
	for i, p := range parts {
		if i < t.delivered {
			continue // delivered before the restart
		}
		replyTo := 0
		if i == 0 {
			replyTo = t.qp.MessageID
		}
		_, err := b.api.send(ctx, a.place, replyTo, p, nil, outbox.High)
		if isTooLong(err) {
			// Parts are cut by what Telegram is known to count; should it
			// count markup after all, cut by HTML length, which it never
			// refuses, rather than lose the part.
			b.log.Warn("telegram refused an answer part as too long, sending it in smaller parts",
				"chat_id", a.place.ChatID, "part", i, "err", err)
			for _, q := range render.Split(p, render.MaxMessage) {
				if _, err = b.api.send(ctx, a.place, replyTo, q, nil, outbox.High); err != nil {
					break
				}
				replyTo = 0
			}
		}
		switch {
		case err == nil:
			t.noteDelivered(i+1, i == len(parts)-1)
		case errors.Is(err, outbox.ErrClosed):
			t.undelivered = true // the bot stops: the next start sends the rest
		default:
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
		t.st.Phase = view.StateCancelled
		t.deliverCancelled(ctx, view.CancelledBeforeStartText)
		t.close(ctx, progress, false)
		return
	}
	t.finishError(ctx, progress, startErrorView(err))
}

func startErrorView(err error) view.TurnError {
	var ee *exec.Error
	if errors.As(err, &ee) || errors.Is(err, exec.ErrNotFound) {
		return view.ClaudeNotFound(err.Error())
	}
	return view.StartFailed(err.Error())
}

func (t *turn) finishError(ctx context.Context, progress chan int, e view.TurnError) {
	// Error texts quote commands, paths and URLs: redact before the view
	// shortens them.
	b := t.a.b
	e.Detail, e.StderrTail = b.redact(e.Detail), b.redact(e.StderrTail)
	t.st.Phase = view.StateFailed
	t.deliver(ctx, []string{view.ErrorText(e)})
	t.close(ctx, progress, false)
}

// finishStopped tells the user the bot is going down mid-turn: an edit
// alone would not notify them.
func (t *turn) finishStopped(ctx context.Context, progress chan int) {
	t.deliver(ctx, []string{view.StoppingText})
	t.close(ctx, progress, false)
}

// close turns the progress message into its summary and forgets it.
func (t *turn) close(ctx context.Context, progress chan int, ok bool) {
	a, b := t.a, t.a.b
	t.endWatch()
	// A /cancel that came too late (the turn answered or failed meanwhile)
	// still gets its outcome.
	t.settleNotices("", false)
	// No request outlives its turn (the runner forgets them then too): a
	// prompt left with buttons, after a crash or a request the CLI withdrew,
	// would take presses that can no longer reach Claude.
	if n, err := b.broker.CancelSession(ctx, a.key, view.ReasonTurnEnded); n > 0 {
		b.log.Debug("approvals left at the end of the turn were cancelled", "chat_id", a.place.ChatID, "count", n, "err", err)
	}
	t.live.stop()
	if !t.progressGot && t.progressSent && progress != nil {
		t.progressID = <-progress // on its way; wait for its id
	}
	// The turn's record, under the user's message until the progress
	// message existed.
	for _, id := range []int{t.qp.MessageID, t.progressID} {
		if id == 0 {
			continue
		}
		if err := b.store.RemoveLive(a.place.ChatID, id); err != nil {
			b.log.Warn("could not forget the turn's live record", "chat_id", a.place.ChatID, "err", err)
		}
	}
	if t.progressID == 0 {
		// A quick turn: its answer is all it sent, but a notice that it
		// waited (queued, or for a slot) ends like a progress message.
		if t.queuedNote != nil {
			t.queuedNote.set(view.ProgressSummary(t.view(), ok))
		}
		return
	}
	summary := view.ProgressSummary(t.view(), ok)
	// Same key as the progress edits: a queued edit is superseded. Low:
	// housekeeping yields to the next turn's answer and prompts.
	_ = b.api.edit(ctx, a.place.ChatID, t.progressID, summary, nil, outbox.Low, t.progressKey(), nil)
}

// exitErrorView tells a turn that ended because Claude exited.
func exitErrorView(e engine.Exited, redact func(string) string) view.TurnError {
	var err string
	if e.Err != nil {
		err = redact(e.Err.Error())
	}
	return view.ClaudeExited(e.ExitCode, e.Signal, err, redact(e.StderrTail))
}
