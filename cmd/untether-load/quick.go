package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"
)

// The quick exchanges (-claude with -quick N) measure issue 36's promise
// with the real CLI: a follow-up sent right after an answer, and a message
// sent 0.5 s after a /cancel was acknowledged, each become a message
// within quickBound of Claude's answer to them (the moment the fake model
// answered). One private chat, N rounds of four turns:
//
//	A  a question; its answer arrives as a message
//	B  the follow-up, sent the moment A's answer is accepted: timed
//	C  a question the model holds; once Claude has asked the model, /cancel
//	D  "again", 0.5 s after the chat says C was cancelled: timed
//
// Rounds are 3.5 s apart, so each starts with the chat's window (3
// messages in 3 s) empty; a miss says how many messages the chat had in
// the window when Claude answered (3: Telegram's limit held it, as the
// issue allows).
const (
	quickBound     = 500 * time.Millisecond
	quickAfterStop = 500 * time.Millisecond
	quickGap       = 3500 * time.Millisecond
	quickWindow    = 3 * time.Second
)

type quickReport struct {
	rounds          int
	followup, again dist
	misses          []string
	lost, tooMany   int
	modelTime       time.Duration
}

func runQuick(ctx context.Context, cfg config, log *slog.Logger) (*quickReport, error) {
	cfg.chats, cfg.answerKB = 1, 0
	d := &driver{cfg: cfg, log: log, rec: newRecorder(), chats: plans(1, 0), holds: map[turnID]chan struct{}{}}
	cancelled := make(chan time.Time, 16)
	d.rec.onText = func(_ int64, text string, now time.Time) {
		if strings.Contains(text, "Cancelled") { // view.Outcome of a cancelled turn: "✖ Cancelled"
			select {
			case cancelled <- now:
			default:
			}
		}
	}
	rig, err := startClaudeRig(ctx, d)
	if err != nil {
		return nil, err
	}
	defer rig.close()
	rep := &quickReport{modelTime: cfg.modelTime}
	c := d.chats[0]
	for round := range cfg.quick {
		n := 4 * round
		a, b, cc, again := turnID{0, n + 1}, turnID{0, n + 2}, turnID{0, n + 3}, turnID{0, n + 4}
		if err := d.quickTurn(ctx, a, promptText(a)); err != nil {
			return rep, err
		}
		if err := d.quickTurn(ctx, b, promptText(b)); err != nil {
			return rep, err
		}
		rep.note(d, "follow-up", b, &rep.followup)

		hold := make(chan struct{})
		d.holdMu.Lock()
		d.holds[cc] = hold
		d.holdMu.Unlock()
		d.rec.begin(cc, false)
		d.fake.SendMessage(c.user, c.chat, promptText(cc))
		if err := d.awaitAsked(ctx, cc); err != nil {
			close(hold)
			return rep, err
		}
		for len(cancelled) > 0 {
			<-cancelled
		}
		d.fake.SendMessage(c.user, c.chat, "/cancel")
		select {
		case <-cancelled:
		case <-time.After(d.cfg.lostAfter):
			close(hold)
			return rep, errors.New("the chat never said the turn was cancelled")
		case <-ctx.Done():
			close(hold)
			return rep, ctx.Err()
		}
		close(hold) // the CLI dropped the request; its handler may end
		if !sleepCtx(ctx, quickAfterStop) {
			return rep, ctx.Err()
		}
		if err := d.quickTurn(ctx, again, promptText(again)); err != nil {
			return rep, err
		}
		rep.note(d, "after /cancel", again, &rep.again)
		rep.rounds++
		if !sleepCtx(ctx, quickGap) {
			return rep, ctx.Err()
		}
	}
	rep.tooMany = d.fake.RateLimited()
	if err := rig.bot.stop(); err != nil && !errors.Is(err, context.Canceled) {
		return rep, fmt.Errorf("bot: %w", err)
	}
	return rep, nil
}

// quickTurn sends text as turn id and waits for its answer as a message.
func (d *driver) quickTurn(ctx context.Context, id turnID, text string) error {
	c := d.chats[0]
	t := d.rec.begin(id, false)
	d.fake.SendMessage(c.user, c.chat, text)
	select {
	case <-t.done:
		return nil
	case <-time.After(d.cfg.lostAfter):
		return fmt.Errorf("turn %s: no answer as a message in %s", id, d.cfg.lostAfter)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// awaitAsked waits until Claude has sent turn id's request to the model.
func (d *driver) awaitAsked(ctx context.Context, id turnID) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(d.cfg.lostAfter)
	for {
		asked := false
		d.rec.stamp(id, func(t *turnRec) { asked = !t.claudeFrom.IsZero() })
		if asked {
			return nil
		}
		select {
		case <-tick.C:
		case <-limit:
			return fmt.Errorf("turn %s: Claude never asked the model", id)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// note takes turn id's time from Claude's answer to the answer as a
// message; past quickBound it is a miss, told with the chat's messages in
// the window before it.
func (r *quickReport) note(d *driver, what string, id turnID, into *dist) {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	t := d.rec.turns[id]
	if t == nil || t.finalAt.IsZero() || t.modelDone.IsZero() {
		r.lost++
		return
	}
	took := t.finalAt.Sub(t.modelDone)
	*into = append(*into, took)
	if took <= quickBound {
		return
	}
	// What the window held when the answer could first have gone: 3
	// messages there make it wait, and that is Telegram's limit, not ours.
	inWindow := 0
	for _, at := range d.rec.sentAt[d.chats[0].chat.ID] {
		if !at.After(t.modelDone) && t.modelDone.Sub(at) < quickWindow {
			inWindow++
		}
	}
	r.misses = append(r.misses, fmt.Sprintf("%s %s: %d ms; the chat had %d messages in the %s before Claude's answer", what, id, ms(took), inWindow, quickWindow))
}

func (r *quickReport) within(d dist) int {
	n := 0
	for _, x := range d {
		if x <= quickBound {
			n++
		}
	}
	return n
}

func (r *quickReport) print(w io.Writer) {
	fmt.Fprintf(w, "untether quick exchanges: %d rounds in one private chat, the real CLI, the model answers after %s, limits enforced\n", r.rounds, r.modelTime)
	fmt.Fprintf(w, "  from Claude's answer to it as a message (p50 / p90 / max ms; within %d ms)\n", ms(quickBound))
	fmt.Fprintf(w, "  %-34s %d / %d / %d; %d of %d\n", "a follow-up right after an answer", ms(r.followup.pct(50)), ms(r.followup.pct(90)), ms(r.followup.pct(100)), r.within(r.followup), len(r.followup))
	fmt.Fprintf(w, "  %-34s %d / %d / %d; %d of %d\n", "a message 0.5 s after /cancel", ms(r.again.pct(50)), ms(r.again.pct(90)), ms(r.again.pct(100)), r.within(r.again), len(r.again))
	for _, m := range r.misses {
		fmt.Fprintln(w, "  miss:", m)
	}
	fmt.Fprintf(w, "quick: rounds=%d lost=%d 429s=%d followup_p50_ms=%d followup_p90_ms=%d followup_within=%d again_p50_ms=%d again_p90_ms=%d again_within=%d\n",
		r.rounds, r.lost, r.tooMany, ms(r.followup.pct(50)), ms(r.followup.pct(90)), r.within(r.followup),
		ms(r.again.pct(50)), ms(r.again.pct(90)), r.within(r.again))
}
