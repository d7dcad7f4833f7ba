package chat

import (
	"context"
	"slices"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// Steered messages across a restart (steer.go, held.go). The store marks a
// queued message steered (prefs.Prompt.SteerID) from the moment it is
// written to the agent until the agent dropped it; taken into a turn it
// leaves the queue. So what a restarted bot finds marked, the agent may
// hold, have taken, or run next:
//   - the agent was re-attached to (adopted): the message is followed by
//     its id again (resteer), and the events the agent replays or sends
//     settle it as without a restart: joined, it leaves the queue; dropped,
//     it is an ordinary queued message; run after the answer, the next turn
//     takes that run over without sending it again (HeldTurn.Steered keeps
//     that turn from being sent again after a further restart);
//   - the agent is gone (the holder died with the machine): the mark goes,
//     and the message runs from the queue as an ordinary one.

// steeredPrompts lists the queued messages marked steered, by conversation.
func (b *Core) steeredPrompts() map[string][]prefs.QueuedPrompt {
	pending, err := b.store.AllPendingPrompts()
	if err != nil {
		b.log.Warn("could not read the queued prompts", "err", err)
		return nil
	}
	out := map[string][]prefs.QueuedPrompt{}
	for _, qp := range pending {
		if qp.SteerID != "" {
			out[qp.Key] = append(out[qp.Key], qp)
		}
	}
	return out
}

// resteerLocked follows again (a.mu held) the messages steered into the
// agent conn a restarted bot re-attached to. Between turns (inTurn false)
// the turn they went to has answered: the agent runs them next.
func (a *session) resteerLocked(conn engine.Conn, inTurn bool, marked []prefs.QueuedPrompt) {
	for _, qp := range marked {
		if a.steering == nil {
			a.steering = map[uint64]*steered{}
		}
		a.steering[qp.Seq] = &steered{id: qp.SteerID, seq: qp.Seq, msgID: qp.MessageID, conn: conn, next: !inTurn}
	}
}

// unfollowUnreplayed stops following the messages followed again in conn
// (resteerLocked) whose steered line its replay does not hold (seen: the
// ids it does): the previous bot stopped while the line still waited for
// the holder (a link down; Steer took it as sent), and the holder never
// got it. The replay starts at the turn's prompt, before any line steered
// into that turn, so such a message is an ordinary queued one again, run
// once after the turn. Not for a taken-over turn (turn.replayed): lines
// steered into the turn before it are not in its replay.
func (a *session) unfollowUnreplayed(conn engine.Conn, seen []string) {
	a.mu.Lock()
	var lost []uint64
	for seq, s := range a.steering {
		if s.conn != conn || s.written != nil || s.next || s.joined || slices.Contains(seen, s.id) {
			continue
		}
		delete(a.steering, seq)
		lost = append(lost, seq)
		if i := slices.IndexFunc(a.queue, func(q prefs.QueuedPrompt) bool { return q.Seq == seq }); i >= 0 {
			a.queue[i].SteerID = ""
		}
	}
	a.mu.Unlock()
	for _, seq := range lost {
		a.c.log.Info("a message steered before the restart never reached the agent: it runs as an ordinary one", "chat_id", a.place.ChatID, "session_key", a.key, "seq", seq)
		a.unmarkSteered(seq)
	}
}

// resumeSteered prepares a queued message found in the store at start-up:
// it reports false when it is not to be queued (the agent took it into
// its turn meanwhile). A marked one no re-attached agent holds is an
// ordinary message from now on.
func (a *session) resumeSteered(qp *prefs.QueuedPrompt) bool {
	if qp.SteerID == "" {
		return true
	}
	a.mu.Lock()
	s := a.steering[qp.Seq]
	if s != nil && s.joined {
		delete(a.steering, qp.Seq)
	}
	a.mu.Unlock()
	switch {
	case s != nil && s.joined:
		return false
	case s != nil:
		return true
	}
	a.c.log.Info("a message steered before the restart runs as an ordinary one: its claude is gone", "chat_id", a.place.ChatID, "session_key", a.key, "seq", qp.Seq)
	a.unmarkSteered(qp.Seq)
	qp.SteerID = ""
	return true
}

// unmarkSteered records that the agent does not hold the queued message
// seq (any more): a restart runs it as an ordinary one.
func (a *session) unmarkSteered(seq uint64) {
	if _, err := a.c.store.SteerPrompt(a.key, seq, ""); err != nil {
		a.c.log.Warn("could not unmark a steered message", "chat_id", a.place.ChatID, "err", err)
	}
}

// steerStopWait bounds the wait for the agent to stop a run it began on
// its own (refuseSteered); past it the process is closed.
const steerStopWait = 30 * time.Second

// refuseSteered: the queued message seq is not run after all (its sender
// is no longer allowed, the budget is spent). When the agent runs it
// already on its own (steered, then the turn answered), that run is
// interrupted and waited for, so that nothing of it reaches the next turn;
// a process that does not stop is closed.
func (a *session) refuseSteered(ctx context.Context, seq uint64) {
	a.mu.Lock()
	s, conn := a.steering[seq], a.conn
	delete(a.steering, seq)
	a.mu.Unlock()
	if s == nil || !s.next || s.conn != conn || conn == nil {
		return
	}
	a.c.log.Info("stopping claude's run of a refused steered message", "chat_id", a.place.ChatID, "session_key", a.key, "seq", seq)
	wctx, cancel := context.WithTimeout(ctx, steerStopWait)
	defer cancel()
	if err := conn.Interrupt(wctx); err != nil {
		a.c.log.Warn("interrupt failed, closing the process", "chat_id", a.place.ChatID, "err", err)
		a.closeConn(ctx, ReasonInterruptFailed)
		return
	}
	for {
		select {
		case ev, ok := <-conn.Events():
			switch e := ev.(type) {
			case engine.TurnCompleted:
				return
			case engine.Exited:
				a.forgetConn()
				return
			case engine.PromptState:
				if e.ID == s.id && e.Stage == engine.PromptCancelled {
					return // dropped before it began: no result follows
				}
			}
			if !ok {
				a.forgetConn()
				return
			}
		case <-wctx.Done():
			a.c.log.Warn("claude did not stop a refused steered message, closing the process", "chat_id", a.place.ChatID)
			a.closeConn(ctx, ReasonInterruptFailed)
			return
		}
	}
}
