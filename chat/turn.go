package chat

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/projects"
)

// turn is the state of one prompt being run; the session's goroutine owns
// it. What shows it is the frontend's TurnSurface (v), called on the same
// goroutine.
type turn struct {
	a      *session
	v      TurnSurface
	qp     prefs.QueuedPrompt
	merged []uint64 // prompts folded into qp (an album)
	// orig is qp as queued, for a Run anyway (anyway.go).
	orig prefs.QueuedPrompt
	// answered is set once the final answer (or error) is being sent: from
	// then on the turn counts as run, though it is still closing.
	answered atomic.Bool
	started  time.Time
	// cancelReq ends when the user cancels this turn (requestCancel). It
	// lives and dies with the turn, so a cancel that comes late can never
	// reach the next one; it also ends a wait for a slot.
	cancelReq     context.Context
	requestCancel context.CancelFunc

	mu     sync.Mutex // guards queued: enqueue runs on the frontend's goroutines
	queued int

	// st is what the turn knows, folded from the agent's events.
	st        *turnstate.State
	resumed   string // session id this process was started to resume
	retried   bool
	cancelled bool
	// starting ends the place of the agent's start in Starts (startedUp).
	starting func()
	// adopted: a previous bot process began this turn (held.go); replaying:
	// its events so far are being replayed, which show nothing again.
	adopted, replaying bool
	// heldFrom is the journal record the turn's replay starts at, as last
	// recorded; delivered counts the messages of its answer that reached
	// the frontend (answeredAll: all did), and undelivered says the bot
	// stopped before they all did: the turn's record stays for the next
	// start (held.go).
	heldFrom                 uint64
	delivered                int
	answeredAll, undelivered bool
	sent                     string // the prompt as the agent was given it
	promptID                 string // the id the agent knows the prompt by (undo.go), "" for its own
	// tookOver: the prompt is a steered message the agent runs on its own
	// (steer.go); it is never sent.
	tookOver bool
	// left: the bot stopped and left the agent running the turn (held.go).
	left bool
	// before is the working directory's repository as the turn found it
	// (see changes); "" when it is not a repository.
	before projects.Tree

	watch stallWatch // the stall watchdog (stall.go)
	// overrun is the limits a Run anyway lets this turn run past (anyway.go).
	overrun Overrun
}

func (t *turn) setQueued(n int) {
	t.mu.Lock()
	t.queued = n
	t.mu.Unlock()
}

// errTurnCancelled: the turn was cancelled before the agent got its prompt
// (while it waited for a slot, or was starting).
var errTurnCancelled = errors.New("the turn was cancelled before Claude started it")

// runTurn runs one prompt; merged are the sequence numbers of prompts
// folded into qp (an album's other items): done together with qp.
func (a *session) runTurn(ctx context.Context, qp prefs.QueuedPrompt, merged ...uint64) {
	b := a.c
	qp = a.announce(ctx, qp) // a scheduled or triggered run: its first message
	orig := qp               // as queued: a message kept for /retry runs again from here
	t := &turn{a: a, qp: qp, orig: qp, merged: merged, started: time.Now(), st: turnstate.New(),
		overrun: b.anyway.granted(a.key, qp.Seq)}
	// The frontend shows the turn at once (a draft or typing), downloads
	// and transcription included; its progress message waits: a quick
	// turn needs none.
	t.v = b.observe(t, b.surface.StartTurn(TurnStart{Key: a.key, Place: a.place, MessageID: qp.MessageID, Started: t.started, Turn: t}))
	defer a.beginTurn(t)()
	defer t.v.Stop() // every end delivers something, which stops it first; this is the backstop
	defer t.startedUp()
	log := b.log.With("chat_id", a.place.ChatID, "session_key", a.key)

	if f, over := b.overBudget(); over && t.overrun&OverDailyBudget == 0 {
		log.Info("daily budget reached: turn refused")
		a.refuseSteered(ctx, qp.Seq)
		t.begin()
		f.Anyway = t.offerAnyway(OverDailyBudget)
		t.finishError(ctx, f)
		return
	}
	if len(qp.Files) > 0 {
		ready, err := t.v.Inputs(ctx, qp)
		if err != nil {
			log.Warn("the message's files could not be made ready: nothing runs", "err", err)
			t.begin()
			t.finishError(ctx, Failure{Kind: FailInput, Err: err})
			return
		}
		qp = ready
		t.qp.Text, t.qp.Files = qp.Text, qp.Files
	}
	conn, err := a.ensureConn(ctx, t)
	if ue := (*UnreachableError)(nil); errors.As(err, &ue) {
		// Not begun: the message stays pending in the store (a restart runs
		// it again) and /retry runs it now.
		log.Warn("the chat's host is unreachable: the message is kept", "host", ue.Machine, "err", err)
		a.holdForRetry(orig, merged)
		t.finishError(ctx, Failure{Kind: FailUnreachable, Machine: ue.Machine, Detail: b.redact(ue.Reason()),
			Others: b.otherMachines(ue.Machine)})
		return
	}
	t.begin()
	if err == nil && t.cancelReq.Err() != nil {
		err = errTurnCancelled // before the agent was given the prompt: it never runs
	}
	if err == nil {
		t.before = a.snapshot(ctx)
		qp.Text = withQuote(t.v.AgentText(ctx, a.machine().Name, a.startDir, qp.Text), qp.Quote)
		t.sent = qp.Text
		a.recordHeld(conn, t, true) // before Send: a restart in between sends it then
		err = t.sendPrompt(ctx, conn, qp.Text)
		if err != nil && t.resumed == "" {
			// The process died between turns; one fresh start is fair.
			a.forgetConn()
			if conn, err = a.ensureConn(ctx, t); err == nil {
				a.recordHeld(conn, t, true) // the new process's records
				err = t.sendPrompt(ctx, conn, qp.Text)
			}
		}
		if err != nil && t.resumed != "" && !t.retried {
			// A process started to resume died before it took the prompt:
			// what the CLI does when it no longer has the session.
			a.forgetConn()
			next, done := t.resumeFailed(ctx, engine.Exited{Err: err})
			if done {
				return
			}
			conn, err = next, nil
		}
	}
	if err != nil {
		t.finishStart(ctx, err)
		return
	}
	t.st.Phase = turnstate.PhaseWorking
	t.v.Refresh(true)
	t.run(ctx, conn)
}

// beginTurn makes t the session's running turn, with its cancel request;
// the func it returns ends that.
func (a *session) beginTurn(t *turn) (end func()) {
	t.cancelReq, t.requestCancel = context.WithCancel(context.Background())
	a.mu.Lock()
	a.turn = t
	t.queued = len(a.queue)
	a.lastUse = time.Now()
	a.mu.Unlock()
	return func() {
		if !t.undelivered {
			a.endHeldTurn() // else the next start sends the rest of the answer
		}
		a.steeredAfter(t)
		a.mu.Lock()
		a.turn = nil
		a.mu.Unlock()
		a.machine().Pool.Wake() // this holder is idle now: a turn waiting for a slot may evict it
		t.requestCancel()
	}
}

// run consumes events until the turn ends.
func (t *turn) run(ctx context.Context, conn engine.Conn) {
	a := t.a
	t.v.Refresh(false)
	cancel := t.cancelReq.Done()
	t.startWatch()
	if !t.adopted {
		a.recordHeld(conn, t, false) // the agent has the prompt: a restart carries the turn on
	}
	for {
		select {
		case <-t.watchC():
			t.checkStall(ctx)
			t.v.Refresh(false)
		case <-t.v.Wake():
			t.v.Woken(ctx)
		case <-cancel:
			cancel = nil // once: the interrupt is on its way
			t.doCancel(ctx, conn)
			t.v.Refresh(false)
		case <-a.quit:
			if a.detachHeld() {
				// The agent goes on: the next start carries the turn on, its
				// live messages stay as they are (held.go).
				t.left = true
				t.endWatch()
				t.v.Leave()
				return
			}
			t.st.Phase = turnstate.PhaseShuttingDown
			a.closeConn(ctx, ReasonBotStopping)
			t.finishStopped(ctx)
			return
		case ev, ok := <-conn.Events():
			if !ok {
				ev = engine.Exited{Err: errors.New("event stream closed")}
			}
			t.startedUp()
			t.heard(ev)
			next, done := t.handle(ctx, conn, ev)
			if done {
				return
			}
			t.v.Pause(t.st.Phase == turnstate.PhaseWaiting)
			if next != nil {
				conn = next
			}
			t.v.Refresh(false)
		}
	}
}

func (t *turn) doCancel(ctx context.Context, conn engine.Conn) {
	a, b := t.a, t.a.c
	if t.cancelled {
		return
	}
	t.cancelled = true
	t.st.Phase = turnstate.PhaseCancelling
	t.v.Refresh(true)
	if _, err := b.broker.CancelSession(ctx, a.key, ReasonTurnCancelled); err != nil {
		b.log.Warn("cancel pending approvals", "chat_id", a.place.ChatID, "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.Interrupt(cctx); err != nil {
		b.log.Warn("interrupt failed, closing the process", "chat_id", a.place.ChatID, "err", err)
		a.closeConn(ctx, ReasonInterruptFailed)
	}
}

// handle applies one event. It returns a replacement conn after a failed
// resume, and done when the turn is over.
func (t *turn) handle(ctx context.Context, conn engine.Conn, ev engine.Event) (engine.Conn, bool) {
	a, b := t.a, t.a.c
	ev = b.redactEvent(ev)
	if t.st.Apply(ev) {
		t.v.Refresh(true)
	}
	switch e := ev.(type) {
	case engine.SessionStarted:
		a.mu.Lock()
		a.model, a.mode = e.Model, e.PermissionMode
		a.mu.Unlock()
		t.storeSession(e.SessionID)
		if !t.replaying {
			b.note(a.key, a.place, t.qp.MessageID, NoteBilling{Billing: e.Billing, Origin: t.qp.Origin})
		}
	case engine.ActionStarted:
		if e.ParentToolUseID == "" {
			t.v.ActionsChanged() // the action list changes: the progress shows it
		}
	case engine.ActionCompleted:
		t.v.ActionsChanged()
		if t.st.Phase == turnstate.PhaseWaiting && len(b.broker.Pending(a.key)) == 0 {
			t.st.Phase = turnstate.PhaseWorking
		}
	case engine.Text:
		switch {
		case e.ParentToolUseID != "": // a subagent's text is not the answer
		case e.Partial && t.replaying:
			t.st.AppendStream(e.Text) // shown before the restart, or shown whole later
		case e.Partial:
			t.v.Streamed(t.st.AppendStream(e.Text)) // a new block: shown alone
		default:
			b.broker.NoteAssistantText(a.key, e.Text)
		}
	case engine.PermissionModeChanged:
		a.setMode(e.Mode)
	case engine.RateLimited, engine.APIRetry, engine.Compacting, engine.Compacted:
		if !t.replaying {
			t.report(e)
		}
	case engine.Replayed:
		if err := t.replayed(ctx, conn, e); err != nil {
			t.finishStart(ctx, err)
			return nil, true
		}
	case engine.ApprovalRequest:
		t.approval(ctx, conn, e)
	case engine.ApprovalCancelled:
		// The agent took the request back: its prompt loses its buttons
		// now, not when the turn ends.
		if b.broker.Withdraw(a.key, e.RequestID) && t.st.Phase == turnstate.PhaseWaiting && len(b.broker.Pending(a.key)) == 0 {
			t.st.Phase = turnstate.PhaseWorking
			t.v.Refresh(true)
		}
	case engine.PromptState:
		t.steerState(e)
	case engine.TurnCompleted:
		t.storeSession(e.SessionID)
		t.finish(ctx, e) // then endHeldTurn: a restart replays nothing of it
		return nil, true
	case engine.Exited:
		a.forgetConn()
		if t.resumed != "" && !t.st.SawInit && !t.retried && !t.cancelled {
			return t.resumeFailed(ctx, e)
		}
		t.finishError(ctx, exitFailure(e, b.redact))
		return nil, true
	}
	return nil, false
}

// resumeFailed falls back to a fresh session once, telling the user.
func (t *turn) resumeFailed(ctx context.Context, e engine.Exited) (engine.Conn, bool) {
	a, b := t.a, t.a.c
	t.retried = true
	b.log.Warn("resume failed, starting a fresh session", "chat_id", a.place.ChatID, "session_id", t.resumed, "exit_code", e.ExitCode)
	if _, err := b.store.MarkResumeFailed(a.key, t.resumed); err != nil {
		b.log.Warn("could not record failed resume", "err", err)
	}
	if err := b.store.ClearSession(a.key); err != nil {
		b.log.Warn("could not clear session", "err", err)
	}
	b.note(a.key, a.place, t.qp.MessageID, NoteResumeFailed{})
	conn, err := a.ensureConn(ctx, t)
	if err == nil {
		t.sent = t.qp.Text
		a.recordHeld(conn, t, true) // the new process's records, as before any Send
		err = t.sendPrompt(ctx, conn, t.qp.Text)
	}
	if err != nil {
		t.finishStart(ctx, err)
		return nil, true
	}
	a.recordHeld(conn, t, false)
	return conn, false
}

func (t *turn) storeSession(id string) {
	if id == "" {
		return
	}
	a, b := t.a, t.a.c
	rec, ok, err := b.store.Session(a.key)
	if err == nil && ok && rec.SessionID == id {
		return
	}
	if err := b.store.StartSession(a.key, id, t.qp.Text, b.Settings(a.key).WorkDir); err != nil {
		b.log.Warn("could not store session id", "chat_id", a.place.ChatID, "session_id", id, "err", err)
	}
}

// begin marks the prompt done, in one transaction with recording the turn
// as live against the user's message, before the agent is given the
// prompt (which then goes at once: it never waits for the frontend). A
// crash before that leaves the prompt queued: it runs after the restart,
// and the agent never saw it. A crash after it leaves the live record,
// which the frontend moves to its progress message once that exists:
// recovery then edits that message to "interrupted by restart", or,
// without one, sends that as a new reply. So a prompt is never lost
// silently and never run twice.
func (t *turn) begin() {
	a, b := t.a, t.a.c
	live := &prefs.LiveMessage{Kind: prefs.LiveTurn, ChatID: a.place.ChatID, MessageID: t.qp.MessageID,
		ThreadID: a.place.Thread, SessionKey: a.key, Created: time.Now()}
	err := b.store.BeginTurn(a.key, append([]uint64{t.qp.Seq}, t.merged...), live)
	if err != nil {
		b.log.Warn("could not record the start of a turn", "chat_id", a.place.ChatID, "err", err)
	}
}

// Snapshot is the turn as a view shows it (TurnInfo).
func (t *turn) Snapshot() TurnSnapshot {
	a := t.a
	st := a.c.Settings(a.key)
	a.mu.Lock()
	model, mode := a.model, a.mode
	a.mu.Unlock()
	if model == "" {
		model = st.Model
	}
	t.mu.Lock()
	queued := t.queued
	t.mu.Unlock()
	return TurnSnapshot{Phase: t.st.Phase, Started: t.started, Actions: t.st.Actions, Model: model, Mode: mode,
		Verbose: st.Verbose, LastText: t.st.LastText, Stream: t.st.Stream, Queued: queued, Limit: t.st.Limit,
		Retry: t.st.Retry, Compaction: t.st.Compaction, Stall: t.stallNote()}
}

// Delivered, Sent and Undelivered are the answer's delivery (TurnInfo).
func (t *turn) Delivered(n int, all bool) { t.recordDelivered(n, all) }
func (t *turn) Sent() (int, bool)         { return t.delivered, t.answeredAll }
func (t *turn) Undelivered()              { t.undelivered = true }
