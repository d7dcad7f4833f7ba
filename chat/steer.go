package chat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/token"
)

// Steer: a message queued behind a running turn can go into that turn
// instead (engine.Steerer): the agent reads it at its next step. It stays
// in the conversation's queue, and in the store, until the agent says what
// became of it (engine.PromptState): taken into the turn, it leaves the
// queue, done; dropped by an interrupt, it stays an ordinary queued
// message; still held when the turn answered, the agent runs it next on
// its own, and the session's next turn is that run, taken over without
// sending it again. So a message runs once.
//
// Across a restart (a held agent, held.go): the store marks a steered
// message with its id (prefs.Prompt.SteerID) when it is written to the
// agent. A bot started later that re-attached to that agent follows it
// again by that id (resteer), and the replayed events settle it as above;
// with the agent gone, the mark goes and it runs as an ordinary message
// (resumeSteered).

var (
	// ErrNoSteer: the conversation's engine cannot take a message into a
	// running turn.
	ErrNoSteer = errors.New("this engine cannot take a message into a running turn")
	// ErrNotQueued: the message does not wait (any more) in the queue.
	ErrNotQueued = errors.New("the message is not queued")
	// ErrSteerFiles: a message with files (or an album) runs as a turn of
	// its own: its files are made ready when its turn starts.
	ErrSteerFiles = errors.New("a message with files runs as its own turn")
	// ErrSteerLessSafe: the running turn's process was started less safe
	// than the config asks (engine.LessSafe, a held process re-attached):
	// it finishes its turn and serves no new one, so a message waits for
	// the fresh process.
	ErrSteerLessSafe = errors.New("the running turn's process takes no new message: it runs after the turn")
)

// SteerStage is what became of a message sent into the running turn
// (NoteSteered).
type SteerStage int

const (
	// SteerSent: written to the agent, not taken yet.
	SteerSent SteerStage = iota + 1
	// SteerJoined: the agent took it into the running turn.
	SteerJoined
	// SteerNext: the turn was already answering; the agent runs it right
	// after, as the next turn.
	SteerNext
)

// NoteSteered: queued message (the note's reply-to) went into the running
// turn, or will run next (Stage).
type NoteSteered struct{ Stage SteerStage }

func (NoteSteered) note() {}

// steered is a queued message written into the running turn.
type steered struct {
	id    string      // the id the agent knows it by
	seq   uint64      // its place in the queue and the store
	msgID int         // the user's message
	conn  engine.Conn // the process it was written to
	// next: the turn answered before taking it; the agent runs it on its
	// own, and the session's next turn takes that run over.
	next bool
	// joined: the agent took it into the turn before a restarted bot
	// queued it again (ResumeQueued): it is not queued (resumeSteered).
	joined bool
	// written is closed once the Steer call returned (nil: followed again
	// after a restart, written long ago). Until then the agent may not
	// have it: the turn's end waits for it (steeredAfter).
	written chan struct{}
}

// CanSteer says whether the conversation's engine can take a message into
// its running turn, as its live process says; with none live it is not
// known yet and taken as yes (a turn's process answers before anything is
// steered).
func (c *Core) CanSteer(key string) bool {
	a := c.existing(key)
	if a == nil {
		return true
	}
	conn := a.liveConn()
	_, ok := conn.(engine.Steerer)
	return ok && lessSafe(conn) == "" || conn == nil
}

// SetSteer sets whether the conversation's messages sent while a turn
// runs go into it (/steer on) or wait (off, the default).
func (c *Core) SetSteer(key string, on bool) error {
	if err := c.store.SetSteer(key, on); err != nil {
		return fmt.Errorf("store the steer setting: %w", err)
	}
	return nil
}

// Steer sends the conversation's queued message msgID into its running
// turn. It never waits behind the turn.
func (c *Core) Steer(ctx context.Context, key string, msgID int) error {
	a := c.existing(key)
	if a == nil {
		return ErrNotRunning
	}
	return a.steer(ctx, func(qp prefs.QueuedPrompt) bool { return qp.MessageID == msgID && qp.Origin == nil })
}

// steer writes the first queued message that is picks into the running
// turn.
func (a *session) steer(ctx context.Context, is func(prefs.QueuedPrompt) bool) error {
	a.mu.Lock()
	t, conn := a.turn, a.conn
	if t == nil || t.answered.Load() || t.cancelReq.Err() != nil || conn == nil {
		a.mu.Unlock()
		return ErrNotRunning
	}
	st, ok := conn.(engine.Steerer)
	if !ok {
		a.mu.Unlock()
		return ErrNoSteer
	}
	if lessSafe(conn) != "" {
		a.mu.Unlock()
		return ErrSteerLessSafe
	}
	i := slices.IndexFunc(a.queue, is)
	if i < 0 || a.steering[a.queue[i].Seq] != nil {
		a.mu.Unlock()
		return ErrNotQueued
	}
	qp := a.queue[i]
	if len(qp.Files) > 0 || qp.Album != "" {
		a.mu.Unlock()
		return ErrSteerFiles
	}
	s := &steered{id: token.UUID(), seq: qp.Seq, msgID: qp.MessageID, conn: conn, written: make(chan struct{})}
	if a.steering == nil {
		a.steering = map[uint64]*steered{}
	}
	a.steering[qp.Seq] = s
	a.mu.Unlock()
	// The turn may end before the agent has the message (the state file
	// is written first): its end waits for this call (up to
	// steerWriteWait), which settles it first, so that it is not taken for
	// one the agent runs next when the agent refused it (Codex does, with
	// no turn running). A deadline (autoSteer's) cannot make a line still
	// being written count as unsent: the engine then says it was sent.
	defer close(s.written)
	// Marked before it is written: a restart right after the write must
	// not find it an ordinary queued message while the agent runs it.
	if _, err := a.c.store.SteerPrompt(a.key, qp.Seq, s.id); err != nil {
		a.forgetSteer(s)
		return fmt.Errorf("mark a queued message steered: %w", err)
	}
	if err := st.Steer(ctx, s.id, withQuote(qp.Text, qp.Quote)); err != nil {
		// Not sent: an ordinary queued message again, run in its turn.
		if a.forgetSteer(s) {
			a.unmarkSteered(qp.Seq)
		}
		return fmt.Errorf("steer a queued message: %w", err)
	}
	a.c.log.Info("a queued message went to the running turn", "chat_id", a.place.ChatID, "session_key", a.key, "seq", qp.Seq)
	a.mu.Lock()
	pending := a.steering[qp.Seq] == s && !s.next
	a.mu.Unlock()
	if pending { // else the agent settled it already, or the turn's end did: no news
		a.c.note(a.key, a.place, qp.MessageID, NoteSteered{Stage: SteerSent})
	}
	return nil
}

// forgetSteer drops s from the messages followed as steered, unless it was
// settled meanwhile (the agent dropped it, and another press of the same
// message may be under way): it says whether it did.
func (a *session) forgetSteer(s *steered) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.steering[s.seq] != s {
		return false
	}
	delete(a.steering, s.seq)
	return true
}

// autoSteer sends a message queued behind a running turn into it when the
// conversation says so (/steer on) and the engine can.
func (a *session) autoSteer(qp prefs.QueuedPrompt) {
	if _, ok := a.liveConn().(engine.Steerer); !ok || qp.Origin != nil || !a.c.Settings(a.key).Steer {
		return
	}
	ctx, cancel := context.WithTimeout(a.c.baseCtx, 10*time.Second)
	defer cancel()
	err := a.steer(ctx, func(q prefs.QueuedPrompt) bool { return q.Seq == qp.Seq })
	if err != nil && !errors.Is(err, ErrNoSteer) && !errors.Is(err, ErrSteerFiles) && !errors.Is(err, ErrNotRunning) && !errors.Is(err, ErrNotQueued) {
		a.c.log.Warn("could not steer a message into the running turn: it waits", "chat_id", a.place.ChatID, "err", err)
	}
}

// steerState follows what the agent did with a steered message.
func (t *turn) steerState(e engine.PromptState) {
	a := t.a
	a.mu.Lock()
	var s *steered
	for _, x := range a.steering {
		if x.id == e.ID && !x.next && !x.joined {
			s = x
		}
	}
	if s == nil {
		a.mu.Unlock()
		return
	}
	switch e.Stage {
	case engine.PromptStarted: // into this turn: done with it
		delete(a.steering, s.seq)
		if i := slices.IndexFunc(a.queue, func(q prefs.QueuedPrompt) bool { return q.Seq == s.seq }); i >= 0 {
			a.queue = slices.Delete(a.queue, i, i+1)
		} else {
			// Not queued again yet after a restart: it must not be.
			s.joined = true
			a.steering[s.seq] = s
		}
		t.setQueued(len(a.queue))
	case engine.PromptCancelled: // dropped by the agent: an ordinary queued message again
		delete(a.steering, s.seq)
	}
	a.mu.Unlock()
	if e.Stage == engine.PromptCancelled {
		a.unmarkSteered(s.seq)
		return
	}
	if e.Stage != engine.PromptStarted {
		return
	}
	if err := a.c.store.DonePrompt(a.key, s.seq); err != nil {
		a.c.log.Warn("could not mark a steered message done", "chat_id", a.place.ChatID, "err", err)
	}
	a.c.note(a.key, a.place, s.msgID, NoteSteered{Stage: SteerJoined})
}

// steeredAfter settles the messages steered into turn t once it ended:
// those the agent still holds run next, on its own; with the process gone
// or the turn cancelled (the interrupt dropped them) they are ordinary
// queued messages again. A turn the bot left running as it stopped settles
// nothing: the next start follows them again (steerheld.go).
func (a *session) steeredAfter(t *turn) {
	if t.left {
		return
	}
	a.waitSteerWrites()
	a.mu.Lock()
	var next []int
	var dropped []uint64
	for seq, s := range a.steering {
		if s.next || s.joined {
			continue
		}
		if a.conn != s.conn || t.cancelled {
			delete(a.steering, seq)
			dropped = append(dropped, seq)
			continue
		}
		s.next = true
		if i := slices.IndexFunc(a.queue, func(q prefs.QueuedPrompt) bool { return q.Seq == seq }); i >= 0 {
			next = append(next, a.queue[i].MessageID)
		}
	}
	a.mu.Unlock()
	for _, seq := range dropped {
		a.unmarkSteered(seq)
	}
	for _, id := range next {
		a.c.note(a.key, a.place, id, NoteSteered{Stage: SteerNext})
	}
}

// steerWriteWait bounds how long a turn's end waits for the Steer calls
// under way: longer than an engine's own bound on one (Codex's request
// timeout), so a cut wait finds only a line still in the writer (a held
// Claude's link down): Claude runs it once written, so it is taken as one
// the agent runs next, never run again by the bot. The process ending
// first makes it an ordinary queued message (steeredAfter).
var steerWriteWait = 2 * time.Minute

// waitSteerWrites waits for the Steer calls under way: a message steered
// as the turn ended is settled by its call, the agent having taken it
// (it may run it next) or refused it (an ordinary queued message). The
// bot stopping, or steerWriteWait, cuts the wait: the engine says an error
// only for a line certainly not sent, so one still under way is sent.
func (a *session) waitSteerWrites() {
	a.mu.Lock()
	var writes []chan struct{}
	for _, s := range a.steering {
		if s.written != nil {
			writes = append(writes, s.written)
		}
	}
	a.mu.Unlock()
	if len(writes) == 0 {
		return
	}
	cut := time.NewTimer(steerWriteWait)
	defer cut.Stop()
	for _, w := range writes {
		select {
		case <-w:
		case <-a.quit:
			return
		case <-cut.C:
			a.c.log.Warn("a message sent into the turn is still being written: taken as sent", "chat_id", a.place.ChatID, "session_key", a.key)
			return
		}
	}
}

// nextLocked is the index of the queued message to run next: one the
// agent already runs (steered), else the first.
func (a *session) nextLocked() int {
	for i, qp := range a.queue {
		if s := a.steering[qp.Seq]; s != nil && s.next {
			return i
		}
	}
	return 0
}

// takeSteered says whether the turn's prompt is one the agent already runs
// in conn (steered, held past the turn it was meant for), and gives its id.
func (a *session) takeSteered(seq uint64, conn engine.Conn) (id string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.steering[seq]
	if s == nil {
		return "", false
	}
	delete(a.steering, seq)
	return s.id, s.next && s.conn == conn
}
