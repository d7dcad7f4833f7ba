package telegram_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// heldEngine makes the harness's sessions durable, as runner's held
// sessions are (docs/durability.md): a session outlives the bot that
// started it, its events are journaled, and a bot started later attaches
// to it again with a replay from a record.
type heldEngine struct {
	*fakeEngine
	mu    sync.Mutex
	procs map[string]*heldProc
	// lessSafe is what a re-attached conn says of how its process was
	// started (engine.LessSafe; held_lesssafe_test.go).
	lessSafe string
}

// heldProc is one session as its holder keeps it: every event, numbered
// from 1, and the prompts among them.
type heldProc struct {
	s        *enginetest.Session
	mu       sync.Mutex
	journal  []heldRecord
	answered map[string]bool
	changed  chan struct{}
}

type heldRecord struct {
	ev     engine.Event // nil for a prompt or a steered line
	prompt bool
	steer  string // a steered line's id (heldsteer_test.go)
}

func newHeldEngine(e *fakeEngine) *heldEngine {
	return &heldEngine{fakeEngine: e, procs: map[string]*heldProc{}}
}

func (e *heldEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.fakeEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	p := &heldProc{s: c.(*enginetest.Session), answered: map[string]bool{}, changed: make(chan struct{})}
	go func() { // the holder reads the session whether a bot listens or not
		for ev := range p.s.Events() {
			p.add(heldRecord{ev: ev})
		}
	}()
	e.mu.Lock()
	handle := "held-" + strconv.Itoa(len(e.procs)+1)
	e.procs[handle] = p
	e.mu.Unlock()
	return p.attach(handle, 0), nil
}

func (e *heldEngine) Reattach(_ context.Context, _ engine.Spec, handle string, from uint64) (engine.Conn, error) {
	e.mu.Lock()
	p, lessSafe := e.procs[handle], e.lessSafe
	e.mu.Unlock()
	if p == nil {
		return nil, engine.ErrGone
	}
	c := p.attach(handle, from)
	c.lessSafe = lessSafe
	return c, nil
}

func (p *heldProc) add(r heldRecord) uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.journal = append(p.journal, r)
	close(p.changed)
	p.changed = make(chan struct{})
	return uint64(len(p.journal))
}

// attach is a new bot's connection: the replay from record from (none
// when 0), then Replayed, then what comes.
func (p *heldProc) attach(handle string, from uint64) *heldConn {
	p.mu.Lock()
	end := uint64(len(p.journal))
	p.mu.Unlock()
	c := &heldConn{p: p, handle: handle, events: make(chan engine.Event), gone: make(chan struct{})}
	c.seen.Store(end)
	go c.forward(from, end)
	return c
}

type heldConn struct {
	p            *heldProc
	handle       string
	events       chan engine.Event
	gone         chan struct{}
	once         sync.Once
	sentAt, seen atomicU64
	lessSafe     string
}

type atomicU64 struct {
	mu sync.Mutex
	v  uint64
}

func (a *atomicU64) Store(v uint64) { a.mu.Lock(); a.v = v; a.mu.Unlock() }
func (a *atomicU64) Load() uint64   { a.mu.Lock(); defer a.mu.Unlock(); return a.v }

func (c *heldConn) forward(from, end uint64) {
	defer close(c.events)
	next, prompts, steered := from, 0, []string(nil)
	if from == 0 {
		next = end + 1
	}
	for {
		c.p.mu.Lock()
		var r heldRecord
		have := next <= uint64(len(c.p.journal))
		if have {
			r = c.p.journal[next-1]
		}
		changed := c.p.changed
		skip := have && r.ev != nil && next <= end && c.p.answeredLocked(r.ev)
		c.p.mu.Unlock()
		if from > 0 && next == end+1 {
			from = 0 // once: the replay is over
			if !c.send(engine.Replayed{Prompts: prompts, Steered: steered}) {
				return
			}
		}
		if !have {
			select {
			case <-changed:
				continue
			case <-c.gone:
				return
			}
		}
		next++
		c.seen.Store(next - 1)
		switch {
		case r.prompt:
			prompts++
		case r.steer != "": // a steered line is no prompt
			steered = append(steered, r.steer)
		case skip, r.ev == nil:
		default:
			if !c.send(r.ev) {
				return
			}
			if _, ok := r.ev.(engine.Exited); ok {
				return
			}
		}
	}
}

func (p *heldProc) answeredLocked(ev engine.Event) bool {
	req, ok := ev.(engine.ApprovalRequest)
	return ok && p.answered[req.RequestID]
}

func (c *heldConn) send(ev engine.Event) bool {
	select {
	case c.events <- ev:
		return true
	case <-c.gone:
		return false
	}
}

func (c *heldConn) answered(id string) {
	c.p.mu.Lock()
	c.p.answered[id] = true
	c.p.mu.Unlock()
}

func (c *heldConn) Events() <-chan engine.Event { return c.events }
func (c *heldConn) Send(ctx context.Context, text string) error {
	c.sentAt.Store(c.p.add(heldRecord{prompt: true}))
	return c.p.s.Send(ctx, text)
}
func (c *heldConn) Allow(ctx context.Context, id string, in json.RawMessage, perms []json.RawMessage) error {
	c.answered(id)
	return c.p.s.Allow(ctx, id, in, perms)
}
func (c *heldConn) Deny(ctx context.Context, id, msg string, interrupt bool) error {
	c.answered(id)
	return c.p.s.Deny(ctx, id, msg, interrupt)
}
func (c *heldConn) Interrupt(ctx context.Context) error { return c.p.s.Interrupt(ctx) }
func (c *heldConn) SetPermissionMode(ctx context.Context, m string) error {
	return c.p.s.SetPermissionMode(ctx, m)
}
func (c *heldConn) Close(ctx context.Context) error { return c.p.s.Close(ctx) }
func (c *heldConn) SessionID() string               { return c.p.s.SessionID() }
func (c *heldConn) Done() <-chan struct{}           { return c.p.s.Done() }
func (c *heldConn) Pid() int                        { return c.p.s.Pid() }
func (c *heldConn) Handle() string                  { return c.handle }
func (c *heldConn) SentAt() uint64                  { return c.sentAt.Load() }
func (c *heldConn) Seen() uint64                    { return c.seen.Load() }
func (c *heldConn) Detach()                         { c.once.Do(func() { close(c.gone) }) }

// The bot stops while Claude waits for an approval: Claude is left
// running, and the bot started next carries the turn on. The prompt's own
// button reaches the same request, the answer comes once, nothing says
// the turn was interrupted, and Claude was started once.
func TestHeldApprovalGoesOnAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "hr", "Bash", map[string]any{"command": "make held"})))
		h.engine = newHeldEngine(h.eng)
		synctest.Wait() // polling: a bot stopped before it is ready leaves its outbox
		h.stop()
		h.start()
		h.say("go")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make held")
		data, _ := findButton(prompt, "Approve")
		h.stop()
		synctest.Wait()
		if a := h.answersOf(0); len(a) != 0 {
			t.Fatalf("the stopping bot answered the request: %+v", a)
		}
		h.start()
		synctest.Wait() // re-attached, replayed, the request submitted again
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, data)); got != "Approved" {
			t.Errorf("the first prompt's button after the restart: toast %q", got)
		}
		h.awaitText(h.dm.ID, "tool allowed")
		synctest.Wait()
		finals, prompts := 0, 0
		for _, text := range h.messages(h.dm.ID) {
			if strings.Contains(text, "tool allowed") {
				finals++
			}
			if strings.Contains(text, "make held") {
				prompts++
			}
			if strings.Contains(text, "Interrupted") || strings.Contains(text, "stopping") {
				t.Errorf("a message says the turn stopped: %q", text)
			}
		}
		if finals != 1 || prompts != 1 {
			t.Errorf("%d answers and %d prompts, want one each:\n%s", finals, prompts, strings.Join(h.messages(h.dm.ID), "\n---\n"))
		}
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times, want once", n)
		}
		if a := h.answersOf(0); len(a) != 1 || !a[0].Decision.Allow {
			t.Errorf("answers %+v, want the one request allowed", a)
		}
		// Held, the session outlives the bot: end it with the test.
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}

// The bot stops while Claude writes its answer: the bot started next
// attaches, edits the same progress message on, and the answer comes
// once; nothing is sent twice and Claude got the prompt once.
func TestHeldAnswerGoesOnAfterRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "tu1", Tool: "Bash", Kind: "command", Title: "make slow"})
			tr.Emit(engine.Text{Text: "Working on it", Partial: true})
			<-release // the bot stops and starts again meanwhile
			tr.Emit(engine.ActionCompleted{ToolUseID: "tu1", OK: true})
			tr.Complete("the answer, once")
		})
		h.engine = newHeldEngine(h.eng)
		synctest.Wait()
		h.stop()
		h.start()
		m := h.say("go")
		progress := h.tg.AwaitMessage(wait, h.dm.ID, func(msg tgtest.Message) bool {
			return msg.ReplyTo == m && strings.Contains(msg.Text, "make slow")
		})
		h.stop()
		synctest.Wait()
		h.start()
		synctest.Wait()
		close(release)
		h.awaitText(h.dm.ID, "the answer, once")
		synctest.Wait()
		answers := 0
		for _, text := range h.messages(h.dm.ID) {
			if strings.Contains(text, "the answer, once") {
				answers++
			}
			if strings.Contains(text, "Interrupted") || strings.Contains(text, "stopping") {
				t.Errorf("a message says the turn stopped: %q", text)
			}
		}
		if answers != 1 {
			t.Errorf("the answer came %d times:\n%s", answers, strings.Join(h.messages(h.dm.ID), "\n---\n"))
		}
		// The same progress message is carried on to its summary.
		h.tg.Await(wait, "the progress message's summary", func() bool {
			pg, _ := h.tg.Message(h.dm.ID, progress.ID)
			return strings.Contains(pg.Text, "done")
		})
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times, want once", n)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}

// A held Claude gone when the bot comes back (the machine rebooted): the
// turn is reported as interrupted, saying that Claude ended, and the
// record is forgotten.
func TestHeldGoneIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "hg", "Bash", map[string]any{"command": "make gone"})))
		h.engine = newHeldEngine(h.eng)
		synctest.Wait()
		h.stop()
		h.start()
		h.say("go")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make gone")
		h.stop()
		synctest.Wait()
		_ = h.eng.session(0).Close(context.Background()) // it dies while the bot is down
		h.engine = newHeldEngine(h.eng)                  // which knows no held process
		h.start()
		h.awaitText(h.dm.ID, "Claude's process ended while the bot was down")
		h.awaitResolved(h.dm.ID, prompt.ID, "Expired")
		if held, err := h.store.ListHeld(); err != nil || len(held) != 0 {
			t.Errorf("held after the restart: %+v %v", held, err)
		}
	})
}
