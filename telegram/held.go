package telegram

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Held sessions (docs/durability.md): an engine that is engine.Durable
// keeps Claude running when the bot stops. The state file records each
// such process (prefs.HeldSession) and the turn it runs, so that a bot
// started later attaches to it again (reattach, from recover) and carries
// the turn on: the progress message is edited on, the answer is sent once,
// an approval still pending is asked again.

// adoption is a held process a restarted bot attached to, waiting for the
// actor's goroutine to take it over.
type adoption struct {
	conn     engine.Conn
	mach     *chat.Machine
	rec      prefs.HeldSession
	progress int             // the turn's progress message, if it had one
	grant    *filesend.Grant // its send_file grant given back, if any
}

// heldOf is conn's durable side, or nil.
func heldOf(conn engine.Conn) engine.Held {
	h, _ := conn.(engine.Held)
	return h
}

// noteHeld records the actor's held process and the turn it runs now (nil:
// between turns). A conn that is not held records nothing. pending: the
// turn's prompt is about to be sent, its record is not known yet; the
// replay then starts after the last record read, and finds the prompt
// there or not (then it is sent again, see resend).
func (a *actor) noteHeld(conn engine.Conn, t *turn, pending bool) {
	h := heldOf(conn)
	if h == nil {
		return
	}
	a.mu.Lock()
	rec := prefs.HeldSession{Key: a.key, ChatID: a.place.ChatID, ThreadID: a.place.Thread, Handle: h.Handle(),
		WorkDir: a.startDir, Started: a.connSince}
	if a.mach != nil {
		rec.Machine = a.mach.Name
	}
	if a.grant != nil {
		rec.Grant = a.grant.Key()
	}
	a.mu.Unlock()
	if t != nil {
		from := h.SentAt()
		if pending {
			from = h.Seen() + 1
		}
		if from == 0 {
			from = t.heldFrom // a re-attached process that replayed no prompt of its own
		}
		t.heldFrom = from
		rec.Turn = &prefs.HeldTurn{From: from, MessageID: t.qp.MessageID, Text: t.qp.Text, Sent: t.sent, UserID: t.qp.UserID,
			Started: t.started, Delivered: t.delivered, Answered: t.answeredAll}
	}
	if err := a.b.store.PutHeld(rec); err != nil {
		a.b.log.Warn("could not record the held claude process", "chat_id", a.place.ChatID, "err", err)
	}
}

// endHeldTurn records that the actor's held process runs no turn: the
// turn ended (answered, failed, cancelled). A process left for the next
// start (detachHeld) or gone is no longer the actor's: nothing changes.
func (a *actor) endHeldTurn() {
	if conn := a.liveConn(); conn != nil {
		a.noteHeld(conn, nil, false)
	}
}

// forgetHeld drops the record of the actor's held process: it ended.
func (a *actor) forgetHeld() {
	if err := a.b.store.RemoveHeld(a.key); err != nil {
		a.b.log.Warn("could not forget the held claude process", "chat_id", a.place.ChatID, "err", err)
	}
}

// detachHeld leaves a held process running as the bot stops; it reports
// false when the actor's process is not held (it is closed as before).
func (a *actor) detachHeld() bool {
	a.mu.Lock()
	conn, grant := a.conn, a.grant
	h := heldOf(conn)
	if h != nil {
		a.conn, a.grant = nil, nil
	}
	a.mu.Unlock()
	if h == nil {
		return false
	}
	closeGrant(grant)
	h.Detach()
	a.machine().Pool.Release(a)
	a.b.log.Info("left claude running for the next start", "chat_id", a.place.ChatID, "session_key", a.key)
	return true
}

// reattach attaches to every held process the state file lists, before
// polling starts. It returns the sessions whose turn goes on (recover
// leaves their live messages alone) and, for those whose turn cannot, what
// their live messages say instead: Claude ended (not the bot), or it runs
// under a holder of another version this bot cannot speak to. A process
// that cannot be attached to is forgotten.
func (b *Bot) reattach(ctx context.Context, live []prefs.LiveMessage) (going map[string]bool, gone map[string]string) {
	going, gone = map[string]bool{}, map[string]string{}
	held, err := b.store.ListHeld()
	if err != nil {
		b.log.Warn("could not read the held claude processes", "err", err)
		return going, gone
	}
	for _, rec := range held {
		conn, m, err := b.attachHeld(ctx, rec)
		if err != nil {
			text := view.HeldGoneText
			switch {
			case errors.Is(err, engine.ErrOtherVersion):
				b.log.Warn("a held claude process runs under another version of untether: left to it", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
				text = view.HeldOtherVersionText
			case errors.Is(err, host.ErrUnreachable):
				b.log.Warn("the host of a held claude process cannot be reached: left to it", "chat_id", rec.ChatID, "session_key", rec.Key, "host", rec.Machine, "err", err)
				text = view.HeldUnreachableText(rec.Machine)
			default:
				b.log.Warn("a held claude process is gone", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
			}
			if rec.Turn != nil {
				gone[rec.Key] = text
			}
			if errors.Is(err, host.ErrUnreachable) {
				// It may run there still: kept, and tried again before the
				// chat's next prompt, so that prompt never starts a second
				// Claude beside it.
				rec := rec
				a := b.actorFor(rec.Key, place{ChatID: rec.ChatID, Thread: rec.ThreadID}, isGroup(rec.ChatID))
				a.mu.Lock()
				a.deferred = &rec
				a.mu.Unlock()
				continue
			}
			if err := b.store.RemoveHeld(rec.Key); err != nil {
				b.log.Warn("could not forget a held claude process", "session_key", rec.Key, "err", err)
			}
			continue
		}
		dir, stopped := b.keepHeld(conn, m, rec)
		if stopped != "" {
			if rec.Turn != nil {
				gone[rec.Key] = stopped
			}
			continue
		}
		ad := &adoption{conn: conn, mach: m, rec: rec, grant: b.restoreGrant(m, rec, dir)}
		if rec.Turn != nil {
			going[rec.Key] = true
			for _, l := range live {
				if l.SessionKey == rec.Key && l.Kind == prefs.LiveProgress {
					ad.progress = l.MessageID
				}
			}
		}
		b.log.Info("attached to a held claude process", "chat_id", rec.ChatID, "session_key", rec.Key, "in_turn", rec.Turn != nil)
		a := b.actorFor(rec.Key, place{ChatID: rec.ChatID, Thread: rec.ThreadID}, isGroup(rec.ChatID))
		a.mu.Lock()
		a.adopt = ad
		a.startLocked()
		a.mu.Unlock()
	}
	return going, gone
}

// retryDeferred tries again, when a prompt waits, to attach to the held
// process whose host did not answer at start. Attached, it is adopted (its
// turn carried on) before the prompt runs; still unreachable, the prompt
// runs and meets the host's error as any (kept for /retry); gone, it is
// forgotten. It says whether there is an adoption to take.
func (a *actor) retryDeferred(ctx context.Context) bool {
	a.mu.Lock()
	rec := a.deferred
	waiting := len(a.queue) > 0 || len(a.again) > 0
	a.mu.Unlock()
	if rec == nil || !waiting {
		return false
	}
	b := a.b
	actx, cancel := context.WithTimeout(ctx, deferredWait)
	conn, m, err := b.attachHeld(actx, *rec)
	cancel()
	if errors.Is(err, host.ErrUnreachable) {
		b.log.Info("the host of a held claude process still cannot be reached", "chat_id", rec.ChatID, "session_key", rec.Key, "host", rec.Machine)
		return false
	}
	a.mu.Lock()
	a.deferred = nil
	a.mu.Unlock()
	if err != nil {
		b.log.Warn("a held claude process is gone", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
		if err := b.store.RemoveHeld(rec.Key); err != nil {
			b.log.Warn("could not forget a held claude process", "session_key", rec.Key, "err", err)
		}
		return false
	}
	dir, stopped := b.keepHeld(conn, m, *rec)
	if stopped != "" {
		return false
	}
	b.log.Info("attached to a held claude process whose host answers again", "chat_id", rec.ChatID, "session_key", rec.Key, "in_turn", rec.Turn != nil)
	a.mu.Lock()
	a.adopt = &adoption{conn: conn, mach: m, rec: *rec, grant: b.restoreGrant(m, *rec, dir)}
	a.mu.Unlock()
	return true
}

// forgetDeferred drops the held process its host could not be reached for
// (/new): the chat's next prompt starts a new session, and the old one
// ends itself after durable_wait, unwatched.
func (a *actor) forgetDeferred() {
	a.mu.Lock()
	deferred := a.deferred
	a.deferred = nil
	a.mu.Unlock()
	if deferred == nil {
		return
	}
	if err := a.b.store.RemoveHeld(a.key); err != nil {
		a.b.log.Warn("could not forget a held claude process", "session_key", a.key, "err", err)
	}
}

// deferredWait bounds a try to reach a held process's host again.
const deferredWait = 20 * time.Second

func (b *Bot) attachHeld(ctx context.Context, rec prefs.HeldSession) (engine.Conn, *chat.Machine, error) {
	m := b.machines.Named(rec.Machine)
	d, ok := m.Engine.(engine.Durable)
	if m.Name != rec.Machine || !ok {
		return nil, nil, engine.ErrGone
	}
	st := b.settings(rec.Key)
	spec := engine.Spec{SessionKey: rec.Key, Model: st.Model, PermissionMode: st.PermissionMode, WorkDir: rec.WorkDir,
		Partial: st.Stream != view.StreamOff}
	var from uint64
	if rec.Turn != nil {
		from = rec.Turn.From
	}
	// The session lives on past this start-up's context, as a started one
	// does (baseCtx): ctx ending detaches it.
	conn, err := d.Reattach(context.WithoutCancel(ctx), spec, rec.Handle, from)
	return conn, m, err
}

// restoreGrant gives a re-attached process its send_file grant back: its
// MCP server (`untether mcp`) still has the secret and reaches this bot at
// the same socket. The path rule is made again, as openGrant made it, from
// dir: the directory it works in, as keepHeld checked it. nil when it had
// none or it fails (the tool then answers that the file was not sent).
func (b *Bot) restoreGrant(m *chat.Machine, rec prefs.HeldSession, dir string) *filesend.Grant {
	if rec.Grant == "" || b.cfg.Files == nil {
		return nil
	}
	restore := m.Regrant
	if m.Name == chat.LocalMachine {
		restore = b.cfg.Files.Restore
	}
	if restore == nil {
		return nil
	}
	g, err := restore(b.grantSession(m, rec.Key, dir), rec.Grant)
	if err != nil {
		b.log.Warn("a held claude process cannot send files", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
		return nil
	}
	return g
}

// adoptSlotWait bounds the wait for a pool slot of a re-attached process.
const adoptSlotWait = 5 * time.Second

// takeAdoption hands the actor's goroutine a held process to take over.
func (a *actor) takeAdoption() *adoption {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.adopt
	a.adopt = nil
	return ad
}

// adoptHeld makes a held process the actor's own and carries on its turn.
func (a *actor) adoptHeld(ctx context.Context, ad *adoption) {
	// The process runs already: a slot is taken if one frees soon, else it
	// runs over the cap until it ends (more held than max_live_sessions).
	actx, cancel := context.WithTimeout(context.Background(), adoptSlotWait)
	err := ad.mach.Pool.Acquire(actx, a, holderBusy, func() {})
	cancel()
	if err != nil {
		a.b.log.Warn("a held claude process runs over max_live_sessions", "chat_id", a.place.ChatID, "session_key", a.key)
	}
	a.mu.Lock()
	a.conn, a.mach, a.startDir, a.connSince, a.lastUse = ad.conn, ad.mach, ad.rec.WorkDir, ad.rec.Started, time.Now()
	a.grant = ad.grant
	a.mu.Unlock()
	if ad.rec.Turn != nil {
		a.resumeTurn(ctx, ad)
	}
}

// resumeTurn carries on a turn a previous bot process began: the events
// replayed from the journal rebuild its state without showing anything
// again, then it runs as any turn.
func (a *actor) resumeTurn(ctx context.Context, ad *adoption) {
	b, ht := a.b, ad.rec.Turn
	qp := prefs.QueuedPrompt{Key: a.key, Prompt: prefs.Prompt{ChatID: a.place.ChatID, ThreadID: a.place.Thread,
		MessageID: ht.MessageID, UserID: ht.UserID, Text: ht.Text}}
	t := &turn{a: a, qp: qp, started: ht.Started, st: turnstate.New(), replaying: true, adopted: true, sent: ht.Sent,
		heldFrom: ht.From, delivered: ht.Delivered, answeredAll: ht.Answered}
	defer a.beginTurn(t)()
	t.progressCh = make(chan int, 1)
	if ad.progress != 0 {
		t.progressID, t.progressSent, t.progressGot = ad.progress, true, true
	}
	t.live = b.startStreamer(a.place, b.streamMode(a.key, a.place), int64(qp.MessageID))
	defer t.live.stop()
	t.st.Phase = turnstate.PhaseWorking
	t.dirty = true
	t.run(ctx, ad.conn, t.progressCh)
}

// replayed ends the replay of an adopted turn. A replay without the
// prompt means the previous bot stopped before the prompt reached Claude:
// it is sent now, once (the record then names it).
func (t *turn) replayed(ctx context.Context, conn engine.Conn, e engine.Replayed) error {
	t.replaying = false
	if t.adopted {
		t.expireStalePrompts(ctx)
	}
	if !t.adopted || e.Prompts > 0 || e.Truncated {
		return nil // a truncated replay may have lost the prompt, not Claude
	}
	a := t.a
	a.b.log.Info("the prompt had not reached the held claude: sending it now", "chat_id", a.place.ChatID, "session_key", a.key)
	if err := conn.Send(ctx, t.sent); err != nil {
		return err
	}
	a.noteHeld(conn, t, false)
	return nil
}

// noteDelivered records that n messages of the turn's answer reached
// Telegram (all: every one did), so that a bot started after a stop or a
// crash sends only the rest. What remains is the moment between Telegram
// taking a message and this write: that message is sent again.
func (t *turn) noteDelivered(n int, all bool) {
	t.delivered, t.answeredAll = n, all
	if conn := t.a.liveConn(); conn != nil {
		t.a.noteHeld(conn, t, false)
	}
}

// approvalSeed is the secret the broker derives its button tokens from, so
// that a request asked again after a restart has the buttons it had
// (approvals.Config.TokenSeed). Without it tokens are random, as before.
func (b *Bot) approvalSeed() []byte {
	seed, err := b.store.Seed("approvals")
	if err != nil {
		b.log.Warn("approval buttons will not survive a restart", "err", err)
		return nil
	}
	return seed
}

// takeBackPrompt makes the prompt a previous bot process showed for the
// same request the prompt of p: its buttons carry the same tokens (the
// broker's seed), so nothing is sent. It reports false when there is none.
func (b *Bot) takeBackPrompt(a *actor, t *turn, p *approvals.Prompt) bool {
	live, err := b.store.ListLive()
	if err != nil {
		return false
	}
	for _, m := range live {
		if m.Kind != prefs.LivePrompt || m.SessionKey != a.key || m.RequestID != p.Request.RequestID {
			continue
		}
		workDir := b.settings(a.key).WorkDir
		var parts []string
		at := view.Attached{Sent: true}
		if p.Kind == approvals.KindQuestion && p.Question != nil {
			parts = []string{view.QuestionTextIn(p.Question, isGroup(a.place.ChatID))}
		} else {
			at.File = view.PromptFullInput(p, workDir, time.Now())
			parts = view.PromptTextAttached(p, workDir, time.Now(), at)
		}
		ref := promptRef{ChatID: m.ChatID, MessageID: m.MessageID}
		t.keptPrompts = append(t.keptPrompts, m.MessageID)
		b.log.Info("a prompt shown before the restart is live again", "chat_id", a.place.ChatID, "request_id", p.Request.RequestID)
		if b.prompts.shown(promptKey{a.key, p.Request.RequestID}, ref, resolvedOriginal(p, parts, workDir, at)) {
			b.forgetPrompt(ref)
		}
		return true
	}
	return false
}

// expireStalePrompts marks the prompts of the previous bot process that
// the replay did not ask again (answered, withdrawn): they lose their
// buttons, as recover does for a session that did not go on.
func (t *turn) expireStalePrompts(ctx context.Context) {
	a, b := t.a, t.a.b
	live, err := b.store.ListLive()
	if err != nil {
		b.log.Warn("could not read live messages", "err", err)
		return
	}
	for _, m := range live {
		if m.Kind != prefs.LivePrompt || m.SessionKey != a.key || slices.Contains(t.keptPrompts, m.MessageID) {
			continue
		}
		text := view.OutcomeText("", view.Outcome{Kind: view.OutcomeExpired})
		if err := b.api.edit(ctx, m.ChatID, m.MessageID, text, nil, outbox.Normal, "", nil); err != nil && !isNotFound(err) {
			b.log.Warn("could not mark an orphaned prompt", "chat_id", m.ChatID, "err", err)
		}
		b.forgetPrompt(promptRef{ChatID: m.ChatID, MessageID: m.MessageID})
	}
}

// progressWait bounds the wait, as the bot stops, for a progress message
// already on its way: its record must name it, or the next start would
// send another and leave this one saying "working" for ever.
const progressWait = 5 * time.Second

// leave ends a turn's part in this bot process while Claude goes on.
func (t *turn) leave(progress chan int) {
	t.endWatch()
	t.live.stop()
	if t.progressSent && !t.progressGot && progress != nil {
		select {
		case id := <-progress:
			t.gotProgress(id)
		case <-time.After(progressWait):
		}
	}
}
