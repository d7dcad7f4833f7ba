package chat

import (
	"context"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/prefs"
)

// What a frontend asks of the core, by conversation key. None of these
// waits for a turn: a press or a cancel is never queued behind one.

// Submit queues a message already recorded in the store (prefs.Store
// AcceptUpdate) to run in its conversation after what is queued there.
func (c *Core) Submit(key string, p Place, qp prefs.QueuedPrompt) { c.sessionFor(key, p).enqueue(qp) }

// Cancel interrupts the conversation's running turn, if it has one that
// has not answered yet, and reports whether it had. before, if not nil, is
// given the turn's surface first (a reply waiting for the turn's outcome).
func (c *Core) Cancel(key string, before func(TurnSurface)) bool {
	s := c.existing(key)
	return s != nil && s.requestCancel(before)
}

// Reset drops the conversation's queue and its process; the next message
// starts a fresh session. A running turn is cancelled (before, if not nil,
// gets its surface first while it has not answered). It returns how many
// waiting messages were dropped.
func (c *Core) Reset(key string, p Place, before func(TurnSurface)) int {
	return c.sessionFor(key, p).requestReset(before)
}

// Retry runs the messages kept because their machine did not answer, first
// in line, and says how many there were.
func (c *Core) Retry(key string, p Place) int { return c.sessionFor(key, p).retryUnsent() }

// Working says whether the conversation has a turn that has not answered,
// or messages waiting.
func (c *Core) Working(key string) bool {
	s := c.existing(key)
	return s != nil && s.working()
}

// Status is the conversation's session as it stands; ok is false when it
// has none in this bot process.
func (c *Core) Status(key string) (st Status, ok bool) {
	s := c.existing(key)
	if s == nil {
		return Status{}, false
	}
	return s.status(), true
}

// RestartAfterTurn makes the conversation's next turn start a new process
// resuming its session, so changed settings take effect; live says it had
// a process to restart (one started later gets the settings anyway).
func (c *Core) RestartAfterTurn(key string) (live bool) {
	s := c.existing(key)
	if s == nil {
		return false
	}
	live = s.liveConn() != nil
	if live {
		s.restartAfterTurn()
	}
	return live
}

// SetLiveMode switches the conversation's live process to the permission
// mode its settings give now; live is false when it has none.
func (c *Core) SetLiveMode(ctx context.Context, key string) (live bool, err error) {
	s := c.existing(key)
	if s == nil {
		return false, nil
	}
	conn := s.liveConn()
	if conn == nil {
		return false, nil
	}
	return true, conn.SetPermissionMode(ctx, c.Settings(key).LiveMode())
}

// LiveSession says whether an agent process of this bot works in the
// agent's session id now.
func (c *Core) LiveSession(id string) bool {
	for _, s := range c.all() {
		if conn := s.liveConn(); conn != nil && conn.SessionID() == id {
			return true
		}
	}
	return false
}

// Proc is a live agent process, for /usage.
type Proc struct {
	Key     string
	Age     time.Duration
	Working bool
}

// Procs are the live agent processes, as of now.
func (c *Core) Procs(now time.Time) []Proc {
	var out []Proc
	for _, s := range c.all() {
		s.mu.Lock()
		if s.conn != nil {
			out = append(out, Proc{Key: s.key, Age: now.Sub(s.connSince), Working: s.turn != nil})
		}
		s.mu.Unlock()
	}
	return out
}

// Answering is where the conversation's running turn answers: its place
// and the message it replies to; ok is false without a session (msgID 0:
// no turn runs).
func (c *Core) Answering(key string) (p Place, msgID int, ok bool) {
	s := c.existing(key)
	if s == nil {
		return Place{}, 0, false
	}
	return s.place, s.promptID(), true
}

// promptID is the message the running turn answers, or 0.
func (a *session) promptID() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.turn == nil {
		return 0
	}
	return a.turn.qp.MessageID
}

// EditResult is what became of an edited message.
type EditResult int

const (
	EditTooLate EditResult = iota // it ran, or is not known
	EditApplied                   // it waits: it runs with the new text
	EditRunning                   // its turn runs: the agent has the old text
)

// Edit replaces the text of the waiting message msgID, in memory and in
// the store.
func (c *Core) Edit(key string, msgID int, text string) EditResult {
	a := c.existing(key)
	if a == nil {
		return EditTooLate
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if t := a.turn; t != nil && t.qp.MessageID == msgID {
		if t.answered.Load() {
			return EditTooLate
		}
		return EditRunning
	}
	for i := range a.queue {
		qp := &a.queue[i]
		if qp.MessageID != msgID {
			continue
		}
		found, err := c.store.EditPrompt(a.key, qp.Seq, text)
		if err != nil {
			c.log.Warn("could not store an edited prompt", "chat_id", a.place.ChatID, "err", err)
			return EditTooLate
		}
		if found {
			qp.Text = text
			return EditApplied
		}
	}
	return EditTooLate
}

// Press answers a request by its button's token, as userID pressed it in
// chatID (approvals.Broker.Press: only allowed users, only in the
// request's chat). A final result reaches the observers; the frontend that
// took the press shows it, with who pressed.
func (c *Core) Press(ctx context.Context, token string, userID, chatID int64) (approvals.Result, error) {
	res, err := c.broker.Press(ctx, token, userID, chatID)
	if err == nil {
		c.rememberOwnRules(res)
	}
	if err == nil && res.Final() && c.watched(res.Request.SessionKey) {
		r := approvals.Resolution{Outcome: res.Outcome, Request: res.Request, Message: res.Message}
		c.emit(Event{Kind: EvPromptResolved, Key: res.Request.SessionKey, Resolution: &r})
	}
	return res, err
}

// PressElsewhere is Press taken by a frontend that does not own the
// conversation (a web page), as by (a name people read) from source. A
// final result reaches the owning Surface as PromptResolved, with by and
// source, so its prompt loses its buttons and says where it was answered;
// the observers get it too.
func (c *Core) PressElsewhere(ctx context.Context, token string, userID, chatID int64, by string, source approvals.Source) (approvals.Result, error) {
	res, err := c.broker.Press(ctx, token, userID, chatID)
	if err == nil {
		c.rememberOwnRules(res)
	}
	if err == nil && res.Final() {
		c.resolved(approvals.Resolution{Outcome: res.Outcome, Request: res.Request, Message: res.Message, By: by, Source: source})
	}
	return res, err
}

// Description is a conversation as /status tells it: its settings, its
// session (Status: zero when this bot process has none; SessionID: the
// live one, else the stored one), money, and the command that continues
// it at the desk.
type Description struct {
	Settings
	Status
	// SessionID is the live process's session, else the stored one.
	SessionID string
	// Model and Mode are what the live process reported, else the
	// settings'.
	Model, Mode string
	Money       Money
	Desk        string
	Machine     *Machine
}

// Describe is the conversation key as it stands.
func (c *Core) Describe(key string) Description {
	st := c.Settings(key)
	d := Description{Settings: st, Model: st.Model, Mode: st.PermissionMode, Money: c.Money(key),
		Machine: c.machines.Named(st.Host).WithEngine(st.Engine)}
	deskDir := st.WorkDir
	if rec, ok, err := c.store.Session(key); err == nil && ok {
		d.SessionID = rec.SessionID
		if rec.WorkDir != "" {
			deskDir = rec.WorkDir // the session belongs to the directory it started in
		}
	}
	if as, ok := c.Status(key); ok {
		d.Status = as
		if as.Mode != "" {
			d.Mode = as.Mode
		}
		if as.Model != "" {
			d.Model = as.Model
		}
		if as.Session != "" {
			d.SessionID = as.Session
		}
		if as.Dir != "" {
			deskDir = as.Dir
		}
	}
	d.Desk = d.Machine.DeskCommand(d.SessionID, deskDir)
	return d
}
