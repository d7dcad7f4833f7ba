package chat

import (
	"context"
	"errors"
	"time"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	"github.com/untether/untether/prefs"
)

// Held sessions (docs/durability.md): an engine that is engine.Durable
// keeps Claude running when the bot stops. The state file records each
// such process (prefs.HeldSession) and the turn it runs, so that a bot
// started later attaches to it again (reattach, from recover) and carries
// the turn on: the progress message is edited on, the answer is sent once,
// an approval still pending is asked again.

// adoption is a held process a restarted bot attached to, waiting for the
// session's goroutine to take it over.
type adoption struct {
	conn  engine.Conn
	mach  *Machine
	rec   prefs.HeldSession
	grant *filesend.Grant // its send_file grant given back, if any
}

// heldOf is conn's durable side, or nil.
func heldOf(conn engine.Conn) engine.Held {
	h, _ := conn.(engine.Held)
	return h
}

// recordHeld records the session's held process and the turn it runs now (nil:
// between turns). A conn that is not held records nothing. pending: the
// turn's prompt is about to be sent, its record is not known yet; the
// replay then starts after the last record read, and finds the prompt
// there or not (then it is sent again, see resend).
func (a *session) recordHeld(conn engine.Conn, t *turn, pending bool) {
	h := heldOf(conn)
	if h == nil {
		return
	}
	a.mu.Lock()
	rec := prefs.HeldSession{Key: a.key, ChatID: a.place.ChatID, ThreadID: a.place.Thread, Handle: h.Handle(),
		WorkDir: a.startDir, Started: a.connSince}
	if a.mach != nil {
		rec.Machine, rec.Engine = a.mach.Name, a.mach.EngineName
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
		if from == 0 || t.answered.Load() && t.heldFrom != 0 {
			// A re-attached process that replayed no prompt of its own, or
			// a prompt Send took as sent still waiting for the holder (a
			// link down: its record is not known, the pending one stays,
			// and a restart finds it there or sends it again); or
			// the turn has its result and the agent went on to a steered
			// message (SentAt moved there): the replay of this turn starts
			// where it did.
			from = t.heldFrom
		}
		t.heldFrom = from
		rec.Turn = &prefs.HeldTurn{From: from, MessageID: t.qp.MessageID, Text: t.qp.Text, Sent: t.sent, UserID: t.qp.UserID,
			Started: t.started, Delivered: t.delivered, Answered: t.answeredAll, PromptID: t.promptID, Steered: t.tookOver}
	}
	if err := a.c.store.PutHeld(rec); err != nil {
		a.c.log.Warn("could not record the held claude process", "chat_id", a.place.ChatID, "err", err)
	}
}

// endHeldTurn records that the session's held process runs no turn: the
// turn ended (answered, failed, cancelled). A process left for the next
// start (detachHeld) or gone is no longer the session's: nothing changes.
func (a *session) endHeldTurn() {
	if conn := a.liveConn(); conn != nil {
		a.recordHeld(conn, nil, false)
	}
}

// forgetHeld drops the record of the session's held process: it ended.
func (a *session) forgetHeld() {
	if err := a.c.store.RemoveHeld(a.key); err != nil {
		a.c.log.Warn("could not forget the held claude process", "chat_id", a.place.ChatID, "err", err)
	}
}

// detachHeld leaves a held process running as the bot stops; it reports
// false when the session's process is not held (it is closed as before).
func (a *session) detachHeld() bool {
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
	a.c.log.Info("left claude running for the next start", "chat_id", a.place.ChatID, "session_key", a.key)
	return true
}

// reattach attaches to every held process the state file lists, before
// anything runs. It returns the sessions whose turn goes on (recovery
// leaves their live messages alone) and, for those whose turn cannot, why:
// the agent ended (not the bot), or it runs under a holder of another
// version this bot cannot speak to. A process that cannot be attached to
// is forgotten.
func (b *Core) reattach(ctx context.Context) (going map[string]bool, gone map[string]HeldStop) {
	going, gone = map[string]bool{}, map[string]HeldStop{}
	held, err := b.store.ListHeld()
	if err != nil {
		b.log.Warn("could not read the held claude processes", "err", err)
		return going, gone
	}
	var marked map[string][]prefs.QueuedPrompt // steered messages (steerheld.go)
	if len(held) > 0 {
		marked = b.steeredPrompts()
	}
	for _, rec := range held {
		conn, m, err := b.attachHeld(ctx, rec)
		if err != nil {
			text := HeldGone
			switch {
			case errors.Is(err, engine.ErrOtherVersion):
				b.log.Warn("a held claude process runs under another version of untether: left to it", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
				text = HeldOtherVersion
			case errors.Is(err, host.ErrUnreachable):
				b.log.Warn("the host of a held claude process cannot be reached: left to it", "chat_id", rec.ChatID, "session_key", rec.Key, "host", rec.Machine, "err", err)
				text = HeldUnreachable
			default:
				b.log.Warn("a held claude process is gone", "chat_id", rec.ChatID, "session_key", rec.Key, "err", err)
			}
			if rec.Turn != nil {
				gone[rec.Key] = HeldStop{Why: text, Machine: rec.Machine}
			}
			if errors.Is(err, host.ErrUnreachable) {
				// It may run there still: kept, and tried again before the
				// chat's next prompt, so that prompt never starts a second
				// Claude beside it.
				rec := rec
				a := b.sessionFor(rec.Key, Place{ChatID: rec.ChatID, Thread: rec.ThreadID})
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
		dir, stopped, ok := b.vetHeld(conn, m, rec)
		if !ok {
			if rec.Turn != nil {
				gone[rec.Key] = HeldStop{Why: stopped, Machine: rec.Machine}
			}
			continue
		}
		ad := &adoption{conn: conn, mach: m, rec: rec, grant: b.restoreGrant(m, rec, dir)}
		if rec.Turn != nil {
			going[rec.Key] = true
		}
		b.log.Info("attached to a held claude process", "chat_id", rec.ChatID, "session_key", rec.Key, "in_turn", rec.Turn != nil)
		a := b.sessionFor(rec.Key, Place{ChatID: rec.ChatID, Thread: rec.ThreadID})
		a.mu.Lock()
		a.adopt = ad
		a.resteerLocked(conn, rec.Turn != nil, marked[rec.Key])
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
func (a *session) retryDeferred(ctx context.Context) bool {
	a.mu.Lock()
	rec := a.deferred
	waiting := len(a.queue) > 0 || len(a.retrying) > 0
	a.mu.Unlock()
	if rec == nil || !waiting {
		return false
	}
	b := a.c
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
	dir, _, ok := b.vetHeld(conn, m, *rec)
	if !ok {
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
func (a *session) forgetDeferred() {
	a.mu.Lock()
	deferred := a.deferred
	a.deferred = nil
	a.mu.Unlock()
	if deferred == nil {
		return
	}
	if err := a.c.store.RemoveHeld(a.key); err != nil {
		a.c.log.Warn("could not forget a held claude process", "session_key", a.key, "err", err)
	}
}

// deferredWait bounds a try to reach a held process's host again.
const deferredWait = 20 * time.Second

func (b *Core) attachHeld(ctx context.Context, rec prefs.HeldSession) (engine.Conn, *Machine, error) {
	m := b.machines.Named(rec.Machine).heldEngine(rec.Engine)
	if m == nil || m.Name != rec.Machine {
		return nil, nil, engine.ErrGone
	}
	d, ok := m.Engine.(engine.Durable)
	if !ok {
		return nil, nil, engine.ErrGone
	}
	spec := heldSpec(rec, b.Settings(rec.Key))
	var from uint64
	if rec.Turn != nil {
		from = rec.Turn.From
	}
	// The session lives on past this start-up's context, as a started one
	// does (baseCtx): ctx ending detaches it.
	conn, err := d.Reattach(context.WithoutCancel(ctx), spec, rec.Handle, from)
	return conn, m, err
}

// heldSpec is the spec a held process is re-attached with: what a start
// now would give it, so that the engine compares like with like
// (engine.LessSafe). The bot's own send_file tool is always in it: a start
// with a grant allows it (ensureConn), and a record whose grant could not
// be restored once (a host's socket not ready in time, [files] off) must
// not make the process look started less safe at the next restart — the
// tool sends nothing without the bot's grant.
func heldSpec(rec prefs.HeldSession, st Settings) engine.Spec {
	return engine.Spec{SessionKey: rec.Key, Model: st.Model, PermissionMode: st.PermissionMode, WorkDir: rec.WorkDir,
		Partial: st.Stream != StreamOff, AllowedTools: []string{filesend.AllowedTool}}
}

// restoreGrant gives a re-attached process its send_file grant back: its
// MCP server (`untether mcp`) still has the secret and reaches this bot at
// the same socket. The path rule is made again, as openGrant made it, from
// dir: the directory it works in, as vetHeld checked it. nil when it had
// none or it fails (the tool then answers that the file was not sent).
func (b *Core) restoreGrant(m *Machine, rec prefs.HeldSession, dir string) *filesend.Grant {
	if rec.Grant == "" || b.cfg.Files == nil {
		return nil
	}
	restore := m.Regrant
	if m.Name == LocalMachine {
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

// takeAdoption hands the session's goroutine a held process to take over.
func (a *session) takeAdoption() *adoption {
	a.mu.Lock()
	defer a.mu.Unlock()
	ad := a.adopt
	a.adopt = nil
	return ad
}

// adoptHeld makes a held process the session's own and carries on its turn.
func (a *session) adoptHeld(ctx context.Context, ad *adoption) {
	// The process runs already: a slot is taken if one frees soon, else it
	// runs over the cap until it ends (more held than max_live_sessions).
	actx, cancel := context.WithTimeout(context.Background(), adoptSlotWait)
	err := ad.mach.Pool.Acquire(actx, a, holderBusy, func() {})
	cancel()
	if err != nil {
		a.c.log.Warn("a held claude process runs over max_live_sessions", "chat_id", a.place.ChatID, "session_key", a.key)
	}
	a.mu.Lock()
	a.conn, a.mach, a.startDir, a.connSince, a.lastUse = ad.conn, ad.mach, ad.rec.WorkDir, ad.rec.Started, time.Now()
	a.grant = ad.grant
	a.mu.Unlock()
	why := lessSafe(ad.conn)
	if why != "" {
		a.c.log.Warn("a held claude process was started less safe than the config asks: it serves no new turn",
			"chat_id", a.place.ChatID, "session_key", a.key, "in_turn", ad.rec.Turn != nil, "why", why)
	}
	if ad.rec.Turn != nil {
		a.resumeTurn(ctx, ad) // its turn loses nothing
	}
	if why != "" && a.liveConn() == ad.conn {
		// Ended as a change of settings ends a process: the next turn
		// resumes the conversation in one started as the config says.
		a.closeConn(ctx, ReasonSettingsChanged)
	}
}

// lessSafe says how a held process may do more unasked than one started
// now would (engine.LessSafe; "" when it may not or does not say).
func lessSafe(conn engine.Conn) string {
	if l, ok := conn.(engine.LessSafe); ok {
		return l.LessSafe()
	}
	return ""
}

// resumeTurn carries on a turn a previous bot process began: the events
// replayed from the journal rebuild its state without showing anything
// again, then it runs as any turn.
func (a *session) resumeTurn(ctx context.Context, ad *adoption) {
	b, ht := a.c, ad.rec.Turn
	qp := prefs.QueuedPrompt{Key: a.key, Prompt: prefs.Prompt{ChatID: a.place.ChatID, ThreadID: a.place.Thread,
		MessageID: ht.MessageID, UserID: ht.UserID, Text: ht.Text}}
	t := &turn{a: a, qp: qp, started: ht.Started, st: turnstate.New(), replaying: true, adopted: true, sent: ht.Sent,
		heldFrom: ht.From, delivered: ht.Delivered, answeredAll: ht.Answered, promptID: ht.PromptID, tookOver: ht.Steered}
	t.v = b.observe(t, b.surface.StartTurn(TurnStart{Key: a.key, Place: a.place, MessageID: qp.MessageID, Started: t.started,
		Adopted: true, Turn: t}))
	defer a.beginTurn(t)()
	defer t.v.Stop()
	t.st.Phase = turnstate.PhaseWorking
	t.v.Refresh(true)
	t.run(ctx, ad.conn)
}

// replayed ends the replay of an adopted turn. A replay without the
// prompt means the previous bot stopped before the prompt reached Claude:
// it is sent now, once (the record then names it).
func (t *turn) replayed(ctx context.Context, conn engine.Conn, e engine.Replayed) error {
	t.replaying = false
	if t.adopted {
		t.v.Replayed(ctx)
		// A taken-over turn (the agent's own run of a steered message)
		// replays from that run: messages steered into the turn before it,
		// held over to run after it, are not in the replay though the agent
		// has them (found by review: run twice). Only a turn that began with
		// its own prompt replays every line steered into it.
		if !e.Truncated && !t.tookOver {
			t.a.unfollowUnreplayed(conn, e.Steered)
		}
	}
	if !t.adopted || e.Prompts > 0 || e.Truncated || t.tookOver {
		// A truncated replay may have lost the prompt, not Claude; a
		// steered message's run holds none: the agent ran it on its own.
		return nil
	}
	a := t.a
	a.c.log.Info("the prompt had not reached the held claude: sending it now", "chat_id", a.place.ChatID, "session_key", a.key)
	if err := t.sendPrompt(ctx, conn, t.sent); err != nil {
		return err
	}
	a.recordHeld(conn, t, false)
	return nil
}

// recordDelivered records that n messages of the turn's answer reached
// the frontend (all: every one did), so that a bot started after a stop or a
// crash sends only the rest. What remains is the moment between Telegram
// taking a message and this write: that message is sent again.
func (t *turn) recordDelivered(n int, all bool) {
	t.delivered, t.answeredAll = n, all
	if conn := t.a.liveConn(); conn != nil {
		t.a.recordHeld(conn, t, false)
	}
}
