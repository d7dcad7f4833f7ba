package telegram

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/projects"
	"github.com/untether/untether/telegram/turnstate"
	"github.com/untether/untether/telegram/view"
)

// heartbeat refreshes the elapsed time of a quiet turn (a long command).
const heartbeat = 30 * time.Second

// turn is the state of one prompt being run; the actor goroutine owns it.
type turn struct {
	a      *actor
	qp     prefs.QueuedPrompt
	merged []uint64 // prompts folded into qp (an album)
	// answered is set once the final answer (or error) is being sent: from
	// then on the turn counts as run, though it is still closing.
	answered atomic.Bool
	started  time.Time
	cancelT  string // callback token of the cancel button
	// cancelReq ends when the user cancels this turn (requestCancel). It
	// lives and dies with the turn, so a cancel that comes late can never
	// reach the next one; it also ends a wait for a Claude slot.
	cancelReq     context.Context
	requestCancel context.CancelFunc

	mu     sync.Mutex // guards queued and notices: enqueue and /cancel run on the router
	queued int
	// notices are replies to /cancel and /new waiting for the turn's
	// outcome (notice.go).
	notices []turnNotice
	// queuedNote is the prompt's "Queued" notice: the progress message
	// is an edit of it, when it was delivered (notice.go).
	queuedNote *notice

	// st is what the turn knows, folded from Claude's events
	// (turnstate: no bot, no outbox); the rest of turn presents it.
	st         *turnstate.State
	progressID int
	rendered   string
	lastEdit   time.Time
	dirty      bool
	resumed    string // session id this process was started to resume
	retried    bool
	cancelled  bool
	// adopted: a previous bot process began this turn (held.go); replaying:
	// its events so far are being replayed, which show nothing again.
	adopted, replaying bool
	// heldFrom is the journal record the turn's replay starts at, as last
	// recorded; delivered counts the messages of its answer that reached
	// Telegram (answeredAll: all did), and undelivered says the bot stopped
	// before they all did: the turn's record stays for the next start
	// (held.go).
	heldFrom                 uint64
	delivered                int
	answeredAll, undelivered bool
	sent                     string // the prompt as Claude was given it
	keptPrompts              []int  // prompts of the previous bot process asked again (held.go)
	// before is the working directory's repository as the turn found it
	// (see changes); "" when it is not a repository.
	before projects.Tree

	// The progress message is sent only once the turn has run for
	// Config.ProgressDelay, or when a prompt needs it (see sendProgress);
	// its id comes on progressCh.
	progressCh   chan int
	progressSent bool
	progressGot  bool
	live         *streamer // activity and Claude's text as it is written
	lastDelta    time.Time // when a draft last got new text

	watch stallWatch // the stall watchdog (stall.go)
}

func (t *turn) setQueued(n int) {
	t.mu.Lock()
	t.queued = n
	t.mu.Unlock()
}

// merged are the sequence numbers of prompts folded into qp (an album's
// other items): done together with qp.
func (a *actor) runTurn(ctx context.Context, qp prefs.QueuedPrompt, merged ...uint64) {
	b := a.b
	qp = a.announce(ctx, qp) // a scheduled or triggered run: its first message
	orig := qp               // as queued: a message kept for /retry runs again from here
	t := &turn{a: a, qp: qp, merged: merged, started: time.Now(), st: turnstate.New()}
	t.queuedNote = a.takeNote(qp.MessageID)
	defer a.beginTurn(t)()
	log := b.log.With("chat_id", a.place.ChatID, "session_key", a.key)
	// The progress message waits: a quick turn needs none (see run). A
	// draft or typing shows the turn at once, downloads and transcription
	// included.
	t.progressCh = make(chan int, 1)
	progress := t.progressCh
	t.live = b.startStreamer(a.place, b.streamMode(a.key, a.place), int64(qp.MessageID))
	defer t.live.stop() // every end delivers something, which stops it first; this is the backstop

	if e, over := b.overBudget(); over {
		log.Info("daily budget reached: turn refused")
		t.begin()
		t.finishError(ctx, progress, e)
		return
	}
	if hasRecording(qp.Files) {
		heard, err := b.withVoice(ctx, a.place, qp)
		if err != nil {
			log.Warn("a recording could not be transcribed: nothing runs", "err", err)
			t.begin()
			t.finishError(ctx, progress, b.voiceErrorView(err))
			return
		}
		qp = heard
		t.qp.Text, t.qp.Files = qp.Text, qp.Files
	}
	if len(qp.Files) > 0 {
		text, err := b.withFiles(ctx, qp)
		if err != nil {
			log.Warn("could not download a file the user sent", "err", err)
			t.begin()
			t.finishError(ctx, progress, view.DownloadFailed(err.Error()))
			return
		}
		qp.Text, t.qp.Text = text, text
	}
	conn, err := a.ensureConn(ctx, t)
	if ue := (*unreachableError)(nil); errors.As(err, &ue) {
		// Not begun: the message stays pending in the store (a restart runs
		// it again) and /retry runs it now.
		log.Warn("the chat's host is unreachable: the message is kept", "host", ue.machine, "err", err)
		a.keep(orig, merged)
		t.finishError(ctx, progress, view.HostUnreachable(ue.machine, ue.reason(), b.otherMachines(ue.machine)))
		return
	}
	t.begin()
	if err == nil && t.cancelReq.Err() != nil {
		err = errTurnCancelled // before Claude was given the prompt: it never runs
	}
	if err == nil {
		t.before = a.snapshot(ctx)
		qp.Text = withQuote(b.commandPrompt(ctx, cmdDir{a.machine().Name, a.startDir}, qp.Text), qp.Quote)
		t.sent = qp.Text
		a.noteHeld(conn, t, true) // before Send: a restart in between sends it then
		err = conn.Send(ctx, qp.Text)
		if err != nil && t.resumed == "" {
			// The process died between turns; one fresh start is fair.
			a.forgetConn()
			if conn, err = a.ensureConn(ctx, t); err == nil {
				err = conn.Send(ctx, qp.Text)
			}
		}
		if err != nil && t.resumed != "" && !t.retried {
			// A process started to resume died before it took the prompt:
			// what the CLI does when it no longer has the session.
			a.forgetConn()
			next, done := t.resumeFailed(ctx, engine.Exited{Err: err}, progress)
			if done {
				return
			}
			conn, err = next, nil
		}
	}
	if err != nil {
		t.finishStart(ctx, progress, err)
		return
	}
	t.st.Phase = view.StateWorking
	t.dirty = true
	t.run(ctx, conn, progress)
}

// beginTurn makes t the actor's running turn, with its cancel request and
// button; the func it returns ends that.
func (a *actor) beginTurn(t *turn) (end func()) {
	b := a.b
	t.cancelReq, t.requestCancel = context.WithCancel(context.Background())
	t.cancelT = b.cancels.add(cancelRef{key: a.key, chatID: a.place.ChatID})
	a.mu.Lock()
	a.turn = t
	t.queued = len(a.queue)
	a.lastUse = time.Now()
	a.mu.Unlock()
	return func() {
		if !t.undelivered {
			a.endHeldTurn() // else the next start sends the rest of the answer
		}
		a.mu.Lock()
		a.turn = nil
		a.mu.Unlock()
		a.machine().pool.wake() // this holder is idle now: a turn waiting for a slot may evict it
		b.cancels.remove(t.cancelT)
		t.requestCancel()
	}
}

// run consumes events until the turn ends.
func (t *turn) run(ctx context.Context, conn engine.Conn, progress chan int) {
	a := t.a
	editTimer := time.NewTimer(time.Hour)
	editTimer.Stop()
	defer editTimer.Stop()
	beat := time.NewTicker(heartbeat)
	defer beat.Stop()
	t.schedule(editTimer)
	cancel := t.cancelReq.Done()
	showProgress := time.NewTimer(max(0, a.b.cfg.ProgressDelay-time.Since(t.started)))
	defer showProgress.Stop()
	t.startWatch()
	if !t.adopted {
		a.noteHeld(conn, t, false) // Claude has the prompt: a restart carries the turn on
	}
	for {
		select {
		case <-t.watchC():
			t.checkStall(ctx)
			t.schedule(editTimer)
		case <-showProgress.C:
			t.sendProgress(ctx, progress)
		case id := <-progress:
			t.gotProgress(id)
			progress = nil
			t.schedule(editTimer)
		case <-editTimer.C:
			t.flush()
			t.schedule(editTimer) // held back by a draft: later
		case <-beat.C:
			t.dirty = true
			t.schedule(editTimer)
		case <-cancel:
			cancel = nil // once: the interrupt is on its way
			t.doCancel(ctx, conn)
			t.schedule(editTimer)
		case <-a.quit:
			if a.detachHeld() {
				// Claude goes on: the next start carries the turn on, its
				// live messages stay as they are (held.go).
				t.leave(progress)
				return
			}
			t.st.Phase = view.StateShuttingDown
			a.closeConn(ctx, view.ReasonBotStopping)
			t.finishStopped(ctx, progress)
			return
		case ev, ok := <-conn.Events():
			if !ok {
				ev = engine.Exited{Err: errors.New("event stream closed")}
			}
			t.heard(ev)
			next, done := t.handle(ctx, conn, ev, progress)
			if done {
				return
			}
			t.live.pause(t.st.Phase == view.StateWaiting)
			if next != nil {
				conn = next
			}
			t.schedule(editTimer)
		}
	}
}

func (t *turn) doCancel(ctx context.Context, conn engine.Conn) {
	a, b := t.a, t.a.b
	if t.cancelled {
		return
	}
	t.cancelled = true
	t.st.Phase = view.StateCancelling
	t.dirty = true
	if _, err := b.broker.CancelSession(ctx, a.key, view.ReasonTurnCancelled); err != nil {
		b.log.Warn("cancel pending approvals", "chat_id", a.place.ChatID, "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.Interrupt(cctx); err != nil {
		b.log.Warn("interrupt failed, closing the process", "chat_id", a.place.ChatID, "err", err)
		a.closeConn(ctx, view.ReasonInterruptFailed)
	}
}

// handle applies one event. It returns a replacement conn after a failed
// resume, and done when the turn is over.
func (t *turn) handle(ctx context.Context, conn engine.Conn, ev engine.Event, progress chan int) (engine.Conn, bool) {
	a, b := t.a, t.a.b
	ev = b.redactEvent(ev)
	if t.st.Apply(ev) {
		t.dirty = true
	}
	switch e := ev.(type) {
	case engine.SessionStarted:
		a.mu.Lock()
		a.model, a.mode = e.Model, e.PermissionMode
		a.mu.Unlock()
		t.storeSession(e.SessionID)
		if !t.replaying {
			b.sched.sawBilling(a.place, t.qp.MessageID, e.Billing, t.qp.Origin)
		}
	case engine.ActionStarted:
		if e.ParentToolUseID == "" {
			t.lastDelta = time.Time{} // the action list changes: the progress message shows it
		}
	case engine.ActionCompleted:
		t.lastDelta = time.Time{}
		if t.st.Phase == view.StateWaiting && len(b.broker.Pending(a.key)) == 0 {
			t.st.Phase = view.StateWorking
		}
	case engine.Text:
		switch {
		case e.ParentToolUseID != "": // a subagent's text is not the answer
		case e.Partial && t.replaying:
			t.st.AppendStream(e.Text) // shown before the restart, or shown whole later
		case e.Partial:
			t.streamed(e.Text)
		default:
			b.broker.NoteAssistantText(a.key, e.Text)
		}
	case engine.PermissionModeChanged:
		a.setMode(e.Mode)
	case engine.RateLimited, engine.APIRetry, engine.Compacting, engine.Compacted:
		if !t.replaying {
			t.note(e)
		}
	case engine.Replayed:
		if err := t.replayed(ctx, conn, e); err != nil {
			t.finishStart(ctx, progress, err)
			return nil, true
		}
	case engine.ApprovalRequest:
		t.approval(ctx, conn, e)
	case engine.ApprovalCancelled:
		// Claude took the request back: its prompt loses its buttons now,
		// not when the turn ends.
		if b.broker.Withdraw(a.key, e.RequestID) && t.st.Phase == view.StateWaiting && len(b.broker.Pending(a.key)) == 0 {
			t.st.Phase = view.StateWorking
			t.dirty = true
		}
	case engine.TurnCompleted:
		t.storeSession(e.SessionID)
		t.finish(ctx, e, progress) // then endHeldTurn: a restart replays nothing of it
		return nil, true
	case engine.Exited:
		a.forgetConn()
		if t.resumed != "" && !t.st.SawInit && !t.retried && !t.cancelled {
			return t.resumeFailed(ctx, e, progress)
		}
		t.finishError(ctx, progress, exitErrorView(e, b.redact))
		return nil, true
	}
	return nil, false
}

// resumeFailed falls back to a fresh session once, telling the user.
func (t *turn) resumeFailed(ctx context.Context, e engine.Exited, progress chan int) (engine.Conn, bool) {
	a, b := t.a, t.a.b
	t.retried = true
	b.log.Warn("resume failed, starting a fresh session", "chat_id", a.place.ChatID, "session_id", t.resumed, "exit_code", e.ExitCode)
	if _, err := b.store.MarkResumeFailed(a.key, t.resumed); err != nil {
		b.log.Warn("could not record failed resume", "err", err)
	}
	if err := b.store.ClearSession(a.key); err != nil {
		b.log.Warn("could not clear session", "err", err)
	}
	b.api.notify(a.place, t.qp.MessageID, view.ResumeFailedNote)
	conn, err := a.ensureConn(ctx, t)
	if err == nil {
		err = conn.Send(ctx, t.qp.Text)
	}
	if err != nil {
		t.finishStart(ctx, progress, err)
		return nil, true
	}
	t.sent = t.qp.Text
	a.noteHeld(conn, t, false)
	return conn, false
}

func (t *turn) storeSession(id string) {
	if id == "" {
		return
	}
	a, b := t.a, t.a.b
	rec, ok, err := b.store.Session(a.key)
	if err == nil && ok && rec.SessionID == id {
		return
	}
	if err := b.store.StartSession(a.key, id, t.qp.Text, b.settings(a.key).WorkDir); err != nil {
		b.log.Warn("could not store session id", "chat_id", a.place.ChatID, "session_id", id, "err", err)
	}
}

// begin marks the prompt done, in one transaction with recording the turn
// as live against the user's message, before Claude is given the prompt
// (which then goes at once: it never waits for Telegram). A crash before
// that leaves the prompt queued: it runs after the restart, and Claude
// never saw it. A crash after it leaves the live record, which moves to
// the progress message once that exists (gotProgress): recover then
// edits that message to "interrupted by restart", or, without one, sends
// that as a new reply. So a prompt is never lost silently and never run
// twice.
func (t *turn) begin() {
	a, b := t.a, t.a.b
	live := &prefs.LiveMessage{Kind: prefs.LiveTurn, ChatID: a.place.ChatID, MessageID: t.qp.MessageID,
		ThreadID: a.place.Thread, SessionKey: a.key, Created: time.Now()}
	err := b.store.BeginTurn(a.key, append([]uint64{t.qp.Seq}, t.merged...), live)
	if err != nil {
		b.log.Warn("could not record the start of a turn", "chat_id", a.place.ChatID, "err", err)
	}
}
