package telegram

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// actor owns one session (chat or forum topic): its prompt queue, its live
// Claude connection and its running turn. It runs a goroutine only while it
// has work or a live process, so idle chats cost no goroutine.
type actor struct {
	b     *Bot
	key   string
	place place
	group bool

	mu    sync.Mutex
	queue []prefs.QueuedPrompt
	// kept are messages whose machine could not be reached, for /retry;
	// again are those /retry put back, run before the queue (hosts.go).
	kept, again []keptPrompt
	running     bool // the goroutine is alive
	stopped     bool
	turn        *turn // the running turn, if any
	conn        engine.Conn
	grant       *filesend.Grant // the send_file grant of conn's process, if any
	// connSince is when conn was started, for /usage.
	connSince time.Time
	model     string    // as reported by the CLI
	mode      string    // permission mode as reported by the CLI
	mark      storeMark // the live session's file after the last turn
	lastUse   time.Time
	restart   bool // settings changed: restart the process (resuming) before the next turn
	// adopt is a held process a restart attached to, for the goroutine
	// to take over before anything else (held.go).
	adopt *adoption
	// deferred is a held process whose host did not answer when the bot
	// started: tried again before the chat's next prompt runs (held.go).
	deferred *prefs.HeldSession

	// mach is the machine of conn's process, whose pool holds the actor's
	// slot: set before a start, kept until the slot is released.
	mach *chat.Machine

	// startDir is the directory conn's process started in, links resolved
	// then: the path rule's working directory, never the chat's setting
	// read again later (its name may lead elsewhere by now).
	startDir string

	// notes are the "Queued" notices of queued prompts, by message id:
	// the turn that runs the prompt makes its progress message of it
	// (notice.go), one message fewer.
	notes map[int]*notice

	// A cancel belongs to the turn it was meant for (turn.requestCancel),
	// never to the actor: a request left over must not stop a later turn.
	wake  chan struct{} // new prompt or request (capacity 1)
	evict chan struct{} // the pool asks for the idle process (capacity 1); a hint, see idle
	quit  chan struct{} // bot shutdown
	reset chan struct{} // /new: drop the process and the session (capacity 1)
}

func newActor(b *Bot, key string, p place, group bool) *actor {
	return &actor{b: b, key: key, place: p, group: group,
		wake: make(chan struct{}, 1), evict: make(chan struct{}, 1), quit: make(chan struct{}), reset: make(chan struct{}, 1)}
}

// Evict asks the actor for its idle process (chat.Holder): its pool is
// short of slots.
func (a *actor) Evict() { signal(a.evict) }

// holderBusy is actor.busy for the pool, whose holders are actors.
func holderBusy(h chat.Holder, strict bool) bool { return h.(*actor).busy(strict) }

// machineFor is the machine the chat works on now: its own choice (/host)
// while that machine is configured, else the default.
func (b *Bot) machineFor(key string) *chat.Machine {
	return b.machines.Named(b.settings(key).Host)
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// enqueue adds a prompt; the user is told when it waits behind a turn.
func (a *actor) enqueue(qp prefs.QueuedPrompt) {
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
	var note *notice
	if busy {
		ahead++
		a.turn.setQueued(len(a.queue))
	}
	if busy && qp.Origin == nil { // a scheduled run has no message of its own yet: its note stays a note
		note = a.b.api.newNotice(a.place, qp.MessageID)
		if a.notes == nil {
			a.notes = map[int]*notice{}
		}
		a.notes[qp.MessageID] = note
	}
	a.startLocked()
	a.mu.Unlock()
	signal(a.wake)
	switch {
	case busy && qp.Origin != nil:
		a.b.api.notify(a.place, 0, view.QueuedRunNote(qp.Origin.Label, ahead))
	case note != nil:
		note.start(view.QueuedNote(ahead))
	}
}

// takeNote is the queued notice of the prompt of message msgID, if any.
func (a *actor) takeNote(msgID int) *notice {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.notes[msgID]
	delete(a.notes, msgID)
	return n
}

func (a *actor) startLocked() {
	if a.running || a.stopped {
		return
	}
	a.running = true
	a.b.wg.Add(1)
	go a.loop()
}

// requestCancel interrupts the running turn, if any. It never waits. A
// turn whose answer is already being sent is over for the user: there is
// nothing left to cancel. A notice (the reply to /cancel), if not nil,
// is edited to the turn's outcome.
func (a *actor) requestCancel(n *notice) bool {
	a.mu.Lock()
	t := a.turn
	a.mu.Unlock()
	if t == nil || t.answered.Load() {
		return false
	}
	if n != nil {
		t.addNotice(n, cancelOutcome)
	}
	t.requestCancel()
	return true
}

// requestReset drops queued prompts and the process; the next message
// starts a fresh Claude session. The dropped prompts are marked done in one
// write, after the lock is released: /cancel on the polling loop takes the
// same lock, and must not wait for the disk. A running turn is cancelled;
// n (the reply to /new, if not nil) stands for its "Cancelled" message,
// which would contradict the fresh start.
func (a *actor) requestReset(n *notice) (dropped int) {
	seqs := a.dropKept()
	a.mu.Lock()
	for _, qp := range a.queue {
		seqs = append(seqs, qp.Seq)
	}
	a.queue, a.notes = nil, nil
	if a.turn != nil {
		if n != nil && !a.turn.answered.Load() {
			a.turn.addNotice(n, keepNotice)
		}
		a.turn.requestCancel()
	}
	a.startLocked()
	a.mu.Unlock()
	if len(seqs) > 0 {
		if err := a.b.store.DonePrompt(a.key, seqs...); err != nil {
			a.b.log.Warn("could not drop queued prompts", "chat_id", a.place.ChatID, "count", len(seqs), "err", err)
		}
	}
	signal(a.reset)
	return len(seqs)
}

// working reports a turn that has not answered yet, or queued prompts. A
// turn that answered is only closing: the user sees it as over.
func (a *actor) working() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.queue) > 0 || len(a.again) > 0 || (a.turn != nil && !a.turn.answered.Load())
}

// requestNewSession closes the process and forgets the session before the
// next turn, without touching a turn that is closing or the queue.
func (a *actor) requestNewSession() {
	a.mu.Lock()
	a.startLocked()
	a.mu.Unlock()
	signal(a.reset)
}

func (a *actor) stop() {
	a.mu.Lock()
	if !a.stopped {
		a.stopped = true
		close(a.quit)
	}
	a.mu.Unlock()
}

type actorStatus struct {
	Queued  int
	Running bool
	Live    bool
	Held    bool // the process outlives the bot (held.go)
	Model   string
	Mode    string
	Session string
	Dir     string // the live process's working directory
}

func (a *actor) status() actorStatus {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := actorStatus{Queued: len(a.queue), Running: a.turn != nil, Live: a.conn != nil, Held: heldOf(a.conn) != nil,
		Model: a.model, Mode: a.mode}
	if a.conn != nil {
		st.Session, st.Dir = a.conn.SessionID(), a.startDir
	}
	return st
}

// restartAfterTurn makes the next turn start a new process that resumes
// the conversation, so changed settings (the model) take effect.
func (a *actor) restartAfterTurn() {
	a.mu.Lock()
	a.restart = true
	a.mu.Unlock()
}

// liveConn returns the live connection, for switching modes on the fly.
func (a *actor) liveConn() engine.Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conn
}

func (a *actor) pop() (prefs.QueuedPrompt, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 || a.stopped {
		return prefs.QueuedPrompt{}, false
	}
	qp := a.queue[0]
	a.queue = a.queue[1:]
	return qp, true
}

// mayRun checks access again when a prompt is about to run, not only when
// it arrived: the allowlist may have changed since (a restart with a new
// config runs the stored queue). A refused prompt is marked done and its
// chat told in one line, so it is neither run nor lost silently. A stored
// prompt without a sender (user id 0) cannot be checked and is refused.
func (a *actor) mayRun(qp prefs.QueuedPrompt, merged []uint64) bool {
	b := a.b
	chatOK, userOK := b.allow.turn(qp.ChatID, qp.UserID, qp.Origin != nil && qp.Origin.Config)
	if chatOK && userOK {
		return true
	}
	b.log.Warn("a queued prompt was not run: no longer allowed", "chat_id", qp.ChatID, "user_id", qp.UserID,
		"session_key", a.key, "chat_allowed", chatOK)
	err := b.store.DonePrompt(a.key, append([]uint64{qp.Seq}, merged...)...)
	if err != nil {
		b.log.Warn("could not drop a refused prompt", "chat_id", qp.ChatID, "session_key", a.key, "err", err)
	}
	b.api.notify(a.place, qp.MessageID, view.NotAllowedNote(!chatOK))
	return false
}

// loop runs turns one after another, then idles while the process is live.
func (a *actor) loop() {
	defer a.b.wg.Done()
	ctx := a.b.baseCtx
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
		if k, ok := a.popAgain(); ok {
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
		if len(a.queue) > 0 && !a.stopped {
			a.mu.Unlock()
			continue
		}
		a.running = false
		a.mu.Unlock()
		return
	}
}

// idle waits for work while a process is live. It returns true when there
// may be work, false when the goroutine can end (no process, nothing queued).
func (a *actor) idle(ctx context.Context) bool {
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
	if a.b.cfg.IdleTimeout > 0 {
		t := time.NewTimer(a.b.cfg.IdleTimeout)
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
				a.closeConn(ctx, view.ReasonBotStopping)
			}
			return false
		case <-timeout:
			a.b.log.Info("closing idle claude process", "chat_id", a.place.ChatID, "session_key", a.key)
			a.closeConn(ctx, view.ReasonIdle)
			return false
		case <-a.evict:
			// The request may be stale: the turn that asked got another
			// slot or gave up (cancelled) meanwhile. Ask the pool again.
			if !a.machine().Pool.Short() {
				continue
			}
			a.closeConn(ctx, view.ReasonEvicted)
			return false
		case ev, ok := <-conn.Events():
			if !ok {
				a.forgetConn()
				return false
			}
			switch e := ev.(type) {
			case engine.Exited:
				a.b.log.Info("claude process ended between turns", "chat_id", a.place.ChatID, "exit_code", e.ExitCode)
				a.forgetConn()
				return false
			case engine.PermissionModeChanged:
				a.setMode(e.Mode)
			case engine.ApprovalRequest:
				// Nothing asks between turns; refuse so the CLI never waits.
				_ = conn.Deny(ctx, e.RequestID, view.ReasonNoTurn, false)
			}
		}
	}
}

// ensureConn returns the live connection, starting (or resuming) one.
func (a *actor) ensureConn(ctx context.Context, t *turn) (engine.Conn, error) {
	b := a.b
	a.mu.Lock()
	conn, restart := a.conn, a.restart
	a.restart = false
	a.mu.Unlock()
	if conn != nil && restart {
		a.closeConn(ctx, view.ReasonSettingsChanged)
		conn = nil
	}
	if conn != nil && a.continuedElsewhere(ctx) {
		// Resuming afresh loads what was said at the desk.
		b.log.Info("the session was continued elsewhere: resuming it afresh", "chat_id", a.place.ChatID, "session_key", a.key)
		b.api.notify(a.place, t.qp.MessageID, view.ContinuedElsewhere)
		a.closeConn(ctx, view.ReasonContinuedElsewhere)
		conn = nil
	}
	if conn != nil {
		// Reused, a process is checked as a start checks the chat's
		// directory: one that fails is closed (sessionWorkDir sets the
		// session aside), and the turn starts afresh where the check sends
		// the chat, with the notice a start gives.
		a.sessionWorkDir(ctx, t.qp.MessageID)
		conn = a.liveConn()
	}
	if conn != nil {
		a.machine().Pool.Touch(a)
		return conn, nil
	}
	m := b.machineFor(a.key)
	a.mu.Lock()
	a.mach = m
	a.mu.Unlock()
	err := m.Pool.Acquire(t.cancelReq, a, holderBusy, func() {
		t.waitNotice(view.WaitingForSlot(m.MaxLive))
	})
	if err != nil {
		if t.cancelReq.Err() != nil {
			return nil, errTurnCancelled
		}
		return nil, err
	}
	workDir := a.sessionWorkDir(ctx, t.qp.MessageID) // before the session lookup: a fallback sets it aside
	startDir := m.ResolvedDir(workDir)
	st := b.settings(a.key)
	spec := engine.Spec{SessionKey: a.key, Model: st.Model, PermissionMode: st.PermissionMode, WorkDir: workDir,
		Partial: st.Stream != view.StreamOff}
	if rec, ok, err := b.store.Session(a.key); err != nil {
		b.log.Warn("could not read stored session", "chat_id", a.place.ChatID, "err", err)
	} else if ok {
		spec.Resume = rec.SessionID
	}
	grant := a.openGrant(m, startDir)
	if grant != nil {
		spec.MCPConfig = grant.ConfigPath()
		spec.AllowedTools = []string{filesend.AllowedTool} // the bot itself checks every path
	}
	conn, err = m.Engine.Start(ctx, spec)
	if err != nil {
		closeGrant(grant)
		m.Pool.Release(a)
		if chat.Unreachable(err) {
			return nil, &chat.UnreachableError{Machine: m.Name, Err: err}
		}
		return nil, err
	}
	t.resumed = spec.Resume
	t.st.SawInit = false
	a.mu.Lock()
	a.conn, a.grant, a.connSince = conn, grant, time.Now()
	a.mode = spec.PermissionMode
	a.startDir = startDir
	a.mark = storeMark{}
	a.mu.Unlock()
	a.noteHeld(conn, nil, false)
	b.refreshMenu(ctx, a.place.ChatID, cmdDir{m.Name, startDir})
	return conn, nil
}

// openGrant lets the process about to start send files from its scope:
// the directory it starts in (startDir, links resolved, as approvals take
// it), the chat's upload folder, add_dirs. Without the tool (not
// configured, or the grant failed) Claude runs all the same.
func (a *actor) openGrant(m *chat.Machine, startDir string) *filesend.Grant {
	b := a.b
	open := m.Grant
	if m.Name == chat.LocalMachine && b.cfg.Files != nil {
		open = b.cfg.Files.Open
	}
	if b.cfg.Files == nil || open == nil {
		return nil
	}
	g, err := open(b.grantSession(m, a.key, startDir))
	if err != nil {
		b.log.Warn("claude starts without the send_file tool", "chat_id", a.place.ChatID, "session_key", a.key, "err", err)
		return nil
	}
	return g
}

// grantSession is what a process of session key started in startDir
// (links resolved) on m may send.
func (b *Bot) grantSession(m *chat.Machine, key, startDir string) filesend.Session {
	rule := b.broker.PathRule(startDir, m.UploadFolder(key), m.Where())
	rule.WorkDirResolved = true
	return filesend.Session{Key: key, Rule: rule}
}

func closeGrant(g *filesend.Grant) {
	if g != nil {
		g.Close()
	}
}

// busy says whether the actor must keep its process: a turn is running
// (which includes waiting for an approval), or, when strict, one is coming
// (queued, or put back by /retry). A chat with a turn coming does not lose
// its warm process to one that waits for a slot: that one waits for a
// holder with nothing left to do, so a burst costs a start per chat, not
// per turn (see pool).
func (a *actor) busy(strict bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.turn != nil || strict && (len(a.queue) > 0 || len(a.again) > 0)
}

func (a *actor) setMode(m string) {
	a.mu.Lock()
	a.mode = m
	a.mu.Unlock()
}

// closeConn ends the live process; its session id stays stored for --resume.
func (a *actor) closeConn(ctx context.Context, why string) {
	a.mu.Lock()
	conn, grant := a.conn, a.grant
	a.conn, a.grant = nil, nil
	a.mu.Unlock()
	if conn == nil {
		return
	}
	// The process may send no more files; it is asked to exit below.
	closeGrant(grant)
	if _, err := a.b.broker.CancelSession(ctx, a.key, view.SessionClosed(why)); err != nil {
		a.b.log.Warn("cancel pending approvals", "chat_id", a.place.ChatID, "err", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := conn.Close(cctx); err != nil {
		a.b.log.Warn("closing claude failed", "chat_id", a.place.ChatID, "err", err)
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

// machine is the machine of the actor's process, or the one its next
// process starts on when it has none.
func (a *actor) machine() *chat.Machine {
	a.mu.Lock()
	m := a.mach
	a.mu.Unlock()
	if m == nil {
		return a.b.machineFor(a.key)
	}
	return m
}

func (a *actor) forgetConn() {
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
func (a *actor) dropSession(ctx context.Context) {
	a.closeConn(ctx, view.ReasonNewSession)
	a.forgetDeferred()
	if err := a.b.store.ArchiveSession(a.key); err != nil {
		a.b.log.Warn("could not clear session", "chat_id", a.place.ChatID, "err", err)
	}
	a.b.broker.Forget(a.key)
}

// albumMax bounds the wait for an album's items, however they trickle in.
const albumMax = 10 * time.Second

// gatherAlbum waits until no item of first's album has arrived for
// AlbumWait, then takes every queued item of it out of the queue and merges
// them into first: their files in order, their captions joined. It returns
// the sequence numbers of the merged prompts, done when the turn begins.
func (a *actor) gatherAlbum(first prefs.QueuedPrompt) (prefs.QueuedPrompt, []uint64) {
	deadline := time.Now().Add(albumMax)
	quiet := time.NewTimer(a.b.cfg.AlbumWait)
	defer quiet.Stop()
wait:
	for time.Now().Before(deadline) {
		select {
		case <-a.wake: // something arrived: wait a full quiet period again
			quiet.Reset(a.b.cfg.AlbumWait)
		case <-quiet.C:
			break wait
		case <-a.quit:
			break wait
		}
	}
	signal(a.wake) // a wake consumed here may have been for other work
	a.mu.Lock()
	defer a.mu.Unlock()
	var seqs []uint64
	texts := []string{first.Text}
	rest := a.queue[:0]
	for _, qp := range a.queue {
		if qp.Album != first.Album {
			rest = append(rest, qp)
			continue
		}
		first.Files = append(first.Files, qp.Files...)
		texts = append(texts, qp.Text)
		seqs = append(seqs, qp.Seq)
	}
	a.queue = rest
	if a.turn != nil {
		a.turn.setQueued(len(a.queue))
	}
	var kept []string
	for _, t := range texts {
		if t = strings.TrimSpace(t); t != "" {
			kept = append(kept, t)
		}
	}
	first.Text = strings.Join(kept, "\n\n")
	return first, seqs
}
