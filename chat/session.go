package chat

import (
	"context"
	"sync"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/prefs"
)

// session owns one conversation (chat or forum topic): its prompt queue,
// its live agent connection and its running turn. It runs a goroutine only
// while it has work or a live process, so idle conversations cost none.
type session struct {
	c     *Core
	key   string
	place Place

	mu    sync.Mutex
	queue []prefs.QueuedPrompt
	// unsent are messages whose machine could not be reached, for /retry;
	// retrying are those /retry put back, run before the queue (retry.go).
	unsent, retrying []unsentPrompt
	running          bool // the goroutine is alive
	undoing          bool // an undo runs: no turn starts until it is done (undo.go)
	stopped          bool
	turn             *turn               // the running turn, if any
	steering         map[uint64]*steered // queued messages written into the turn, by seq (steer.go)
	conn             engine.Conn
	grant            *filesend.Grant // the send_file grant of conn's process, if any
	// connSince is when conn was started, for /usage.
	connSince time.Time
	model     string    // as reported by the CLI
	mode      string    // permission mode as reported by the CLI
	mark      storeMark // the live session's file after the last turn
	changed   turnTrees // what the last turn changed, as measured (projects.go)
	lastUse   time.Time
	restart   bool // settings changed: restart the process (resuming) before the next turn
	// adopt is a held process a restart attached to, for the goroutine
	// to take over before anything else (held.go).
	adopt *adoption
	// deferred is a held process whose host did not answer when the bot
	// started: tried again before the chat's next prompt runs (held.go).
	deferred *prefs.HeldSession

	// mach is the machine of conn's process, whose pool holds the session's
	// slot: set before a start, kept until the slot is released.
	mach *Machine

	// startDir is the directory conn's process started in, links resolved
	// then: the path rule's working directory, never the chat's setting
	// read again later (its name may lead elsewhere by now).
	startDir string

	// A cancel belongs to the turn it was meant for (turn.requestCancel),
	// never to the session: a request left over must not stop a later turn.
	wake  chan struct{} // new prompt or request (capacity 1)
	evict chan struct{} // the pool asks for the idle process (capacity 1); a hint, see idle
	quit  chan struct{} // bot shutdown
	reset chan struct{} // /new: drop the process and the session (capacity 1)
}

func newSession(c *Core, key string, p Place) *session {
	return &session{c: c, key: key, place: p,
		wake: make(chan struct{}, 1), evict: make(chan struct{}, 1), quit: make(chan struct{}), reset: make(chan struct{}, 1)}
}

// Evict asks the session for its idle process (Holder): its pool is
// short of slots.
func (a *session) Evict() { signal(a.evict) }

// holderBusy is session.busy for the pool, whose holders are sessions.
func holderBusy(h Holder, strict bool) bool { return h.(*session).busy(strict) }

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// enqueue adds a prompt; the user is told when it waits behind a turn.
func (a *session) enqueue(qp prefs.QueuedPrompt) {
	a.mu.Lock()
	if a.stopped {
		a.mu.Unlock()
		return // stays in the store; it runs after the restart
	}
	a.queue = append(a.queue, qp)
	ahead := len(a.queue) - 1
	// The later items of an album join the first: one notice is enough. A
	// turn that answered is over for the user (it is only closing): the
	// message runs next without a notice.
	busy := a.turn != nil && !a.turn.answered.Load() && !(qp.Album != "" && ahead > 0 && a.queue[ahead-1].Album == qp.Album)
	if busy {
		ahead++
		a.turn.setQueued(len(a.queue))
		// The frontend's note of it: a scheduled run has no message of its
		// own yet, its note stays a note; a typed one may become the
		// turn's progress message.
		a.c.surface.Queued(a.place, qp.MessageID, qp.Origin, ahead)
	}
	a.startLocked()
	a.mu.Unlock()
	if busy {
		a.autoSteer(qp)
	}
	signal(a.wake)
	// Observers after the lock: Watch holds the watchers' lock while it
	// reads each session's status (which takes a.mu).
	if busy && a.c.watched(a.key) {
		a.c.emit(Event{Kind: EvQueued, Key: a.key, Place: a.place, Queued: ahead})
	}
}

func (a *session) startLocked() {
	if a.running || a.stopped {
		return
	}
	a.running = true
	a.c.wg.Add(1)
	go a.loop()
}

// requestCancel interrupts the running turn, if any. It never waits. A
// turn whose answer is already being sent is over for the user: there is
// nothing left to cancel. before, if not nil, is given the turn's surface
// first (the reply to /cancel waits there for the turn's outcome).
func (a *session) requestCancel(before func(TurnSurface)) bool {
	return a.cancelIf(func(v TurnSurface) bool {
		if before != nil {
			before(v)
		}
		return true
	})
}

// cancelIf interrupts the running turn if it has not answered and ok,
// given its surface, says so (stop.go).
func (a *session) cancelIf(ok func(TurnSurface) bool) bool {
	a.mu.Lock()
	t := a.turn
	a.mu.Unlock()
	if t == nil || t.answered.Load() || !ok(frontOf(t.v)) {
		return false
	}
	t.requestCancel()
	return true
}

// requestReset drops queued prompts and the process; the next message
// starts a fresh Claude session. The dropped prompts are marked done in one
// write, after the lock is released: /cancel on the polling loop takes the
// same lock, and must not wait for the disk. A running turn is cancelled;
// before, if not nil, is given its surface first while it has not
// answered (the reply to /new stands for its "Cancelled" message, which
// would contradict the fresh start).
func (a *session) requestReset(before func(TurnSurface)) (dropped int) {
	seqs := a.dropUnsent()
	a.mu.Lock()
	for _, qp := range a.queue {
		seqs = append(seqs, qp.Seq)
	}
	a.queue, a.steering = nil, nil
	if a.turn != nil {
		if before != nil && !a.turn.answered.Load() {
			before(frontOf(a.turn.v))
		}
		a.turn.requestCancel()
	}
	a.startLocked()
	a.mu.Unlock()
	a.c.surface.QueueDropped(a.place)
	if len(seqs) > 0 {
		if err := a.c.store.DonePrompt(a.key, seqs...); err != nil {
			a.c.log.Warn("could not drop queued prompts", "chat_id", a.place.ChatID, "count", len(seqs), "err", err)
		}
	}
	signal(a.reset)
	return len(seqs)
}

// working reports a turn that has not answered yet, or queued prompts. A
// turn that answered is only closing: the user sees it as over.
func (a *session) working() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.workingLocked()
}

func (a *session) workingLocked() bool {
	return len(a.queue) > 0 || len(a.retrying) > 0 || (a.turn != nil && !a.turn.answered.Load())
}

// requestNewSession closes the process and forgets the session before the
// next turn, without touching a turn that is closing or the queue.
func (a *session) requestNewSession() {
	a.mu.Lock()
	a.startLocked()
	a.mu.Unlock()
	signal(a.reset)
}

func (a *session) stop() {
	a.mu.Lock()
	if !a.stopped {
		a.stopped = true
		close(a.quit)
	}
	a.mu.Unlock()
}

// Status is a conversation's session as /status shows it.
type Status struct {
	Queued  int
	Running bool
	Live    bool
	Held    bool // the process outlives the bot (held.go)
	Model   string
	Mode    string
	// Engine names the live process's agent when its machine offers more
	// than one ("": one engine, or nothing live).
	Engine  string
	Session string
	Dir     string // the live process's working directory
}

func (a *session) status() Status {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := Status{Queued: len(a.queue), Running: a.turn != nil, Live: a.conn != nil, Held: heldOf(a.conn) != nil,
		Model: a.model, Mode: a.mode}
	if a.conn != nil {
		st.Session, st.Dir = a.conn.SessionID(), a.startDir
		if a.mach != nil {
			st.Engine = a.mach.Offered()
		}
	}
	return st
}

// restartAfterTurn makes the next turn start a new process that resumes
// the conversation, so changed settings (the model) take effect.
func (a *session) restartAfterTurn() {
	a.mu.Lock()
	a.restart = true
	a.mu.Unlock()
}

// liveConn returns the live connection, for switching modes on the fly.
func (a *session) liveConn() engine.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conn
}

func (a *session) pop() (prefs.QueuedPrompt, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 || a.stopped || a.undoing {
		return prefs.QueuedPrompt{}, false
	}
	i := a.nextLocked() // one the agent already runs goes first (steer.go)
	qp := a.queue[i]
	a.queue = append(a.queue[:i:i], a.queue[i+1:]...)
	return qp, true
}

// mayRun checks access again when a prompt is about to run, not only when
// it arrived: the allowlist may have changed since (a restart with a new
// config runs the stored queue). A refused prompt is marked done and its
// chat told in one line, so it is neither run nor lost silently. A stored
// prompt without a sender (user id 0) cannot be checked and is refused.
func (a *session) mayRun(qp prefs.QueuedPrompt, merged []uint64) bool {
	b := a.c
	chatOK, userOK := b.access.Turn(qp.ChatID, qp.UserID, qp.Origin != nil && qp.Origin.Config)
	if chatOK && userOK {
		return true
	}
	b.log.Warn("a queued prompt was not run: no longer allowed", "chat_id", qp.ChatID, "user_id", qp.UserID,
		"session_key", a.key, "chat_allowed", chatOK)
	a.refuseSteered(b.baseCtx, qp.Seq)
	err := b.store.DonePrompt(a.key, append([]uint64{qp.Seq}, merged...)...)
	if err != nil {
		b.log.Warn("could not drop a refused prompt", "chat_id", qp.ChatID, "session_key", a.key, "err", err)
	}
	b.note(a.key, a.place, qp.MessageID, NoteNotAllowed{Chat: !chatOK})
	return false
}

// loop runs turns one after another, then idles while the process is live.
func (a *session) loop() {
	defer a.c.wg.Done()
	ctx := a.c.baseCtx
	for {
		select {
		case <-a.reset:
			a.dropSession(ctx)
		default:
		}
		if ad := a.takeAdoption(); ad != nil {
			a.adoptHeld(ctx, ad)
			continue
		}
		if a.retryDeferred(ctx) {
			continue
		}
		if k, ok := a.popRetry(); ok {
			if a.mayRun(k.qp, k.merged) {
				a.runTurn(ctx, k.qp, k.merged...)
			}
			continue
		}
		if qp, ok := a.pop(); ok {
			var more []uint64
			if qp.Album != "" {
				qp, more = a.gatherAlbum(qp)
			}
			if !a.mayRun(qp, more) {
				continue
			}
			a.runTurn(ctx, qp, more...)
			continue
		}
		if a.idle(ctx) {
			continue
		}
		a.mu.Lock()
		if len(a.queue) > 0 && !a.stopped && !a.undoing {
			a.mu.Unlock()
			continue
		}
		a.running = false // an undo under way starts it again when done (undo.go)
		a.mu.Unlock()
		return
	}
}

// idle waits for work while a process is live. It returns true when there
// may be work, false when the goroutine can end (no process, nothing queued).
func (a *session) idle(ctx context.Context) bool {
	a.mu.Lock()
	conn := a.conn
	a.mu.Unlock()
	if conn == nil {
		select {
		case <-a.quit:
		default:
		}
		return false
	}
	var timeout <-chan time.Time
	if a.c.cfg.IdleTimeout > 0 {
		t := time.NewTimer(a.c.cfg.IdleTimeout)
		defer t.Stop()
		timeout = t.C
	}
	for {
		select {
		case <-a.wake:
			return true
		case <-a.reset:
			a.dropSession(ctx)
			return true
		case <-a.quit:
			if !a.detachHeld() { // a held process goes on for the next start
				a.closeConn(ctx, ReasonBotStopping)
			}
			return false
		case <-timeout:
			a.c.log.Info("closing idle claude process", "chat_id", a.place.ChatID, "session_key", a.key)
			a.closeConn(ctx, ReasonIdle)
			return false
		case <-a.evict:
			// The request may be stale: the turn that asked got another
			// slot or gave up (cancelled) meanwhile. Ask the pool again.
			if !a.machine().Pool.Short() {
				continue
			}
			a.closeConn(ctx, ReasonEvicted)
			return false
		case ev, ok := <-conn.Events():
			if !ok {
				a.forgetConn()
				return false
			}
			switch e := ev.(type) {
			case engine.Exited:
				a.c.log.Info("claude process ended between turns", "chat_id", a.place.ChatID, "exit_code", e.ExitCode)
				a.forgetConn()
				return false
			case engine.PermissionModeChanged:
				a.setMode(e.Mode)
			case engine.ApprovalRequest:
				// Nothing asks between turns; refuse so the CLI never waits.
				_ = conn.Deny(ctx, e.RequestID, ReasonNoTurn, false)
			}
		}
	}
}

// busy says whether the session must keep its process: a turn is running
// (which includes waiting for an approval), or, when strict, one is coming
// (queued, or put back by /retry). A chat with a turn coming does not lose
// its warm process to one that waits for a slot: that one waits for a
// holder with nothing left to do, so a burst costs a start per chat, not
// per turn (see pool).
func (a *session) busy(strict bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn != nil || strict && (len(a.queue) > 0 || len(a.retrying) > 0)
}

func (a *session) setMode(m string) {
	a.mu.Lock()
	a.mode = m
	a.mu.Unlock()
}

// closeConn ends the live process; its session id stays stored for --resume.
func (a *session) closeConn(ctx context.Context, why string) {
	a.mu.Lock()
	conn, grant := a.conn, a.grant
	a.conn, a.grant = nil, nil
	a.mu.Unlock()
	if conn == nil {
		return
	}
	// The process may send no more files; it is asked to exit below.
	closeGrant(grant)
	if _, err := a.c.broker.CancelSession(ctx, a.key, SessionClosed(why)); err != nil {
		a.c.log.Warn("cancel pending approvals", "chat_id", a.place.ChatID, "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.Close(cctx); err != nil {
		a.c.log.Warn("closing claude failed", "chat_id", a.place.ChatID, "err", err)
	}
	if heldOf(conn) != nil {
		a.forgetHeld()
	}
	go func() { // drain what is left so the runner's goroutines end
		for range conn.Events() {
		}
	}()
	a.machine().Pool.Release(a)
}

// machine is the machine of the session's process, or the one its next
// process starts on when it has none.
func (a *session) machine() *Machine {
	a.mu.Lock()
	m := a.mach
	a.mu.Unlock()
	if m == nil {
		return a.c.MachineFor(a.key)
	}
	return m
}

func (a *session) forgetConn() {
	a.mu.Lock()
	grant, held := a.grant, heldOf(a.conn) != nil
	a.conn, a.grant = nil, nil
	a.mu.Unlock()
	if held {
		a.forgetHeld()
	}
	closeGrant(grant)
	a.machine().Pool.Release(a)
}

// dropSession is /new: close the process and end the session, which
// /sessions can bring back.
func (a *session) dropSession(ctx context.Context) {
	a.closeConn(ctx, ReasonNewSession)
	a.forgetDeferred()
	if err := a.c.store.ArchiveSession(a.key); err != nil {
		a.c.log.Warn("could not clear session", "chat_id", a.place.ChatID, "err", err)
	}
	a.c.broker.Forget(a.key)
}
