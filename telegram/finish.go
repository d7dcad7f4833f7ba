package telegram

import (
	"context"
	"errors"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/render"
	"github.com/untether/untether/telegram/view"
)

// The end of a turn in Telegram: the final answer as a new message (edits
// don't notify), the progress message reduced to a one-line summary.

// Answer sends a turn's answer, or its stop at a limit or its failure as
// Claude said it.
func (t *tgTurn) Answer(ctx context.Context, f chat.Final) {
	b := t.b
	footer := view.FinalFooter(view.Footer{Cost: f.Cost, Duration: f.Duration, Turns: f.Turns,
		InTokens: f.InTokens, OutTokens: f.OutTokens, OK: f.OK, Changes: f.Changes, Desk: f.Desk,
		ContextTokens: f.ContextTokens, ContextWindow: f.ContextWindow, NoUndo: f.NoUndo, Overrun: f.Overrun, Engine: f.Engine})
	var kb view.Keyboard // its Undo or Run anyway button
	var parts []string
	var rich string // the answer as a rich message (rich.go), or ""
	switch f.Outcome {
	case chat.OutcomeDone:
		parts = view.FinalParts(f.Result, footer, render.Message)
		if kb = view.UndoKeyboard(f.UndoID()); kb == nil { // a rich message takes no button
			rich = b.rich.answer(t.place.ChatID, f.Result, footer)
		}
	case chat.OutcomeBudgetStop:
		parts, kb = []string{view.TurnBudgetStopped(f.MaxTurnUSD, footer)}, view.AnywayKeyboard(f.Anyway)
	case chat.OutcomeLimitStop:
		l := view.Limit{Status: view.LimitRejected}
		if f.Limit != nil {
			l = view.LimitOf(*f.Limit, time.Now())
		}
		parts = []string{view.UsageLimitNotice(l)}
	default:
		parts = []string{view.ErrorText(view.TurnFailed(b.redact(f.Error)))}
	}
	t.dropProgressEdit()
	if answerID := t.deliverAnswer(ctx, rich, parts, kb); f.Outcome == chat.OutcomeDone {
		b.speech.follow(t.key, t.place, t.fromVoice, answerID, f.Result)
	}
}

// dropProgressEdit drops a progress edit still queued: it would spend the
// chat's budget between two parts of the answer; the summary edit
// replaces it anyway.
func (t *tgTurn) dropProgressEdit() {
	if t.progressID != 0 {
		t.b.out.Drop(t.progressKey())
	}
}

// Cancelled ends a cancelled turn: the notices of the commands that
// cancelled it say so, or a message of its own does.
func (t *tgTurn) Cancelled(ctx context.Context, beforeStart bool) {
	if beforeStart {
		t.deliverCancelled(ctx, view.CancelledBeforeStartText)
		return
	}
	t.dropProgressEdit()
	if t.stopped.Load() { // from the draft: the text written so far stays, as a message
		t.live.stop()
		t.settleNotices(view.StoppedFooter, true)
		t.deliver(ctx, view.StoppedParts(t.live.written()))
		return
	}
	t.deliverCancelled(ctx, view.CancelledText)
}

// Failed tells a turn that failed outside Claude's own answer.
func (t *tgTurn) Failed(ctx context.Context, f chat.Failure) {
	b := t.b
	e := view.Failure(f, func(err error) (view.TurnError, bool) {
		if ie := (*inputError)(nil); errors.As(err, &ie) {
			return ie.view, true
		}
		return view.TurnError{}, false
	})
	// Error texts quote commands, paths and URLs: redact before the view
	// shortens them.
	e.Detail, e.StderrTail = b.redact(e.Detail), b.redact(e.StderrTail)
	t.deliverAnswer(ctx, "", []string{view.ErrorText(e)}, view.AnywayKeyboard(f.Anyway))
}

// Stopping tells the user the bot is going down mid-turn: an edit alone
// would not notify them.
func (t *tgTurn) Stopping(ctx context.Context) { t.deliver(ctx, []string{view.StoppingText}) }

// deliver sends the final parts in order; a final is never dropped (the
// outbox retries until delivered or the bot stops).
func (t *tgTurn) deliver(ctx context.Context, parts []string) { t.deliverAnswer(ctx, "", parts, nil) }

// undeliver notes that the bot stops before the answer went out: the next
// start sends the rest (a held session).
func (t *tgTurn) undeliver() {
	t.undelivered = true
	t.info.Undelivered()
}

// deliverAnswer is deliver with the answer's rich form first, when it has
// one: the parts go only if Telegram refuses it; kb under the last. It
// returns the id of the answer's first message this process sent, 0 if none.
func (t *tgTurn) deliverAnswer(ctx context.Context, rich string, parts []string, kb view.Keyboard) (first int) {
	b := t.b
	t.live.stop() // no draft may land after the answer: it would show again under it
	switch {
	case rich != "":
		t.live.bridgeAs(rich, true, b.out.Delay(t.place.ChatID))
	case len(parts) > 0:
		t.live.bridge(parts[0], b.out.Delay(t.place.ChatID))
	}
	delivered, all := t.info.Sent()
	if all {
		return 0 // all of it reached Telegram before the restart (held.go)
	}
	if rich != "" && delivered == 0 {
		if id, ok := t.sendRichAnswer(ctx, rich); ok {
			if !t.undelivered {
				t.info.Delivered(1, true)
			}
			return id
		}
	}
	for i, p := range parts {
		if i < delivered {
			continue // delivered before the restart
		}
		replyTo := 0
		if i == 0 {
			replyTo = t.msgID
		}
		under := kb.If(i == len(parts)-1)
		id, err := b.api.send(ctx, t.place, replyTo, p, under, outbox.High)
		if isTooLong(err) {
			// Parts are cut by what Telegram is known to count; should it
			// count markup after all, cut by HTML length, which it never
			// refuses, rather than lose the part.
			b.log.Warn("telegram refused an answer part as too long, sending it in smaller parts",
				"chat_id", t.place.ChatID, "part", i, "err", err)
			for _, q := range render.Split(p, render.MaxMessage) {
				if _, err = b.api.send(ctx, t.place, replyTo, q, under, outbox.High); err != nil {
					break
				}
				replyTo = 0
			}
		}
		switch {
		case err == nil:
			t.info.Delivered(i+1, i == len(parts)-1)
			if first == 0 {
				first = id
			}
		case errors.Is(err, outbox.ErrClosed):
			t.undeliver() // the bot stops: the next start sends the rest
		default:
			b.log.Error("final answer not delivered", "chat_id", t.place.ChatID, "part", i, "err", err)
		}
	}
	return first
}

// Close turns the progress message into its summary and forgets it.
func (t *tgTurn) Close(ctx context.Context, ok bool) {
	b := t.b
	// A /cancel that came too late (the turn answered or failed meanwhile)
	// still gets its outcome.
	t.settleNotices("", false)
	t.live.stop()
	if !t.progressGot && t.progressSent {
		t.progressID = <-t.progressCh // on its way; wait for its id
	}
	// The turn's record, under the user's message until the progress
	// message existed.
	for _, id := range []int{t.msgID, t.progressID} {
		if id == 0 {
			continue
		}
		if err := b.store.RemoveLive(t.place.ChatID, id); err != nil {
			b.log.Warn("could not forget the turn's live record", "chat_id", t.place.ChatID, "err", err)
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
	_ = b.api.edit(ctx, t.place.ChatID, t.progressID, summary, nil, outbox.Low, t.progressKey(), nil)
}
