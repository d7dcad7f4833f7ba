// Package enginetest is an in-process, scripted Claude session for tests
// and load runs of the bot: it implements engine.Conn, as *runner.Session does, emits
// runner events from a script, and records every answer written to it.
package enginetest

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/engine"
)

// Script runs one turn (one Send). It emits events through the Turn and
// must end the turn with Complete, Fail or Crash.
type Script func(t *Turn)

// Decision is what the bot answered to an approval request.
type Decision struct {
	Allow              bool
	UpdatedInput       json.RawMessage
	UpdatedPermissions []json.RawMessage
	Message            string
	Interrupt          bool
	// Interrupted is set when the turn was interrupted while waiting.
	Interrupted bool
	// Closed is set when the session closed while waiting.
	Closed bool
	// Withdrawn is set when the script withdrew the request (Turn.Withdraw).
	Withdrawn bool
}

// Session is a scripted stand-in for *runner.Session.
type Session struct {
	id     string
	script Script
	events chan engine.Event
	done   chan struct{}

	mu        sync.Mutex
	closed    bool
	prompts   chan sent
	pending   map[string]chan Decision
	current   *Turn
	mode      string
	answers   []Answer
	stray     []Answer // answers to requests that were not pending
	turns     int
	sent      int    // prompts sent; sent > turns means one is on its way to the script
	interrupt bool   // an interrupt came before the script took the sent prompt
	steers    []sent // lines Steer wrote that no turn took yet (steer.go)
	steerHow  steerHow
	// answered: the running turn emitted its TurnCompleted (a Codex-like
	// session refuses steers from then on, steer.go).
	answered  bool
	closeOnce sync.Once
	ledger    *Ledger
	cpu       Meter
	pid       int
}

// fakePids numbers sessions like processes: tests that measure a
// session's process (the stall watchdog's CPU time) tell them apart by it.
var fakePids atomic.Int64

// Answer records an Allow or Deny written to the session.
type Answer struct {
	RequestID string
	Decision  Decision
	At        time.Time
}

// TurnCost is what Complete charges for a turn.
const TurnCost = 0.01

// Ledger keeps each session's running total the way Claude Code does: it
// grows with every turn and, for a session started again with the same id
// (--resume), continues where it was. Every result reports the total, never
// the turn's own cost. Share one Ledger between the sessions of a test.
type Ledger struct {
	mu     sync.Mutex
	totals map[string]float64
}

// Total returns id's running total.
func (l *Ledger) Total(id string) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.totals[id]
}

func (l *Ledger) add(id string, usd float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.totals == nil {
		l.totals = map[string]float64{}
	}
	l.totals[id] += usd
	return l.totals[id]
}

// Option adjusts New.
type Option func(*Session)

// WithLedger keeps the session's running total in l, so a session started
// again with the same id continues it. Without it the session has a ledger
// of its own (a session that is never resumed).
func WithLedger(l *Ledger) Option { return func(s *Session) { s.ledger = l } }

// New starts a scripted session with the given id.
func New(id string, script Script, opts ...Option) *Session {
	s := &Session{id: id, script: script, events: make(chan engine.Event, 4096), done: make(chan struct{}),
		prompts: make(chan sent, 64), pending: map[string]chan Decision{}, mode: "default",
		pid: int(1_000_000 + fakePids.Add(1))}
	for _, o := range opts {
		o(s)
	}
	if s.ledger == nil {
		s.ledger = &Ledger{}
	}
	go s.loop()
	return s
}

func (s *Session) loop() {
	for {
		select {
		case p := <-s.prompts:
			s.mu.Lock()
			s.turns++
			t := &Turn{Prompt: p.text, ID: p.id, N: s.turns, s: s, interrupted: make(chan struct{})}
			if s.interrupt {
				s.interrupt = false
				close(t.interrupted)
			}
			s.current, s.answered = t, false
			s.mu.Unlock()
			if p.steered {
				s.emit(engine.PromptState{ID: p.id, Stage: engine.PromptStarted})
			}
			s.script(t)
			s.mu.Lock()
			s.current = nil
			s.mu.Unlock()
			s.runSteered()
			if t.crashed {
				return
			}
		case <-s.done:
			return
		}
	}
}

// Pid is a made-up process id, unique among the sessions of a test run:
// the meter given WithCPU is asked about it.
func (s *Session) Pid() int { return s.pid }

// Meter stands for a host's TreeCPU in tests.
type Meter interface {
	TreeCPU(ctx context.Context, pid int) (time.Duration, error)
}

// WithCPU measures the session's process tree with m (engine.CPUMeter);
// without it the CPU time is never known.
func WithCPU(m Meter) Option { return func(s *Session) { s.cpu = m } }

// TreeCPU implements engine.CPUMeter through the meter given WithCPU.
func (s *Session) TreeCPU(ctx context.Context) (time.Duration, error) {
	if s.cpu == nil {
		return 0, errors.New("no CPU meter")
	}
	return s.cpu.TreeCPU(ctx, s.pid)
}

// Events implements engine.Conn.
func (s *Session) Events() <-chan engine.Event { return s.events }

// Done is closed when the session is closed.
func (s *Session) Done() <-chan struct{} { return s.done }

// SessionID returns the fixed id.
func (s *Session) SessionID() string { return s.id }

// Send queues a prompt; turns run one after another, like the CLI.
func (s *Session) Send(ctx context.Context, text string) error { return s.send("", text) }

// sent is a prompt on its way to the script, with the id it was sent as.
type sent struct {
	id, text string
	steered  bool // a steered line no turn took: its own turn now
}

func (s *Session) send(id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engine.ErrClosed
	}
	select {
	case s.prompts <- sent{id: id, text: text}:
		s.sent++
		return nil
	default:
		return errors.New("enginetest: too many queued prompts")
	}
}

// Allow answers a pending request.
func (s *Session) Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error {
	return s.answer(requestID, Decision{Allow: true, UpdatedInput: updatedInput, UpdatedPermissions: updatedPermissions})
}

// Deny answers a pending request.
func (s *Session) Deny(ctx context.Context, requestID, message string, interrupt bool) error {
	return s.answer(requestID, Decision{Message: message, Interrupt: interrupt})
}

func (s *Session) answer(id string, d Decision) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engine.ErrClosed
	}
	ch, ok := s.pending[id]
	if !ok {
		s.stray = append(s.stray, Answer{RequestID: id, Decision: d, At: time.Now()})
		return engine.ErrUnknownRequest
	}
	delete(s.pending, id)
	s.answers = append(s.answers, Answer{RequestID: id, Decision: d, At: time.Now()})
	ch <- d
	return nil
}

// Stray returns the answers written to requests that were not pending
// (unknown, already answered or withdrawn); each got ErrUnknownRequest,
// as the real runner answers them.
func (s *Session) Stray() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Answer(nil), s.stray...)
}

// Answers returns every answer written so far.
func (s *Session) Answers() []Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Answer(nil), s.answers...)
}

// Interrupt ends the running turn's wait (the script sees Interrupted).
func (s *Session) Interrupt(ctx context.Context) error {
	s.dropSteered()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return engine.ErrClosed
	}
	if t := s.current; t != nil && !t.isInterrupted() {
		close(t.interrupted)
	} else if t == nil && s.sent > s.turns {
		// The CLI interrupts a turn it has been sent but not begun.
		s.interrupt = true
	}
	return nil
}

// SetPermissionMode switches the mode and reports it, like the CLI.
func (s *Session) SetPermissionMode(ctx context.Context, mode string) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return engine.ErrClosed
	}
	s.mode = mode
	s.mu.Unlock()
	s.emit(engine.PermissionModeChanged{Mode: mode})
	return nil
}

// Mode returns the current permission mode.
func (s *Session) Mode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

// Close ends the session: pending requests see Closed, then Exited.
func (s *Session) Close(ctx context.Context) error {
	s.finish(engine.Exited{})
	return nil
}

func (s *Session) finish(ex engine.Exited) {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		for id, ch := range s.pending {
			ch <- Decision{Closed: true}
			delete(s.pending, id)
		}
		close(s.done)
		s.events <- ex
		close(s.events)
		s.mu.Unlock()
	})
}

// emit holds the lock while sending so finish cannot close the channel
// under it; the channel is buffered far beyond what a test emits unread.
func (s *Session) emit(evs ...engine.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for _, ev := range evs {
		if _, end := ev.(engine.TurnCompleted); end {
			s.turnEndLocked()
		}
		s.events <- ev
	}
}

// Turn is one scripted turn.
type Turn struct {
	Prompt string
	// ID is the id the prompt was sent as (Undoable's SendAs), "" else.
	ID          string
	N           int
	s           *Session
	interrupted chan struct{}
	crashed     bool
}

func (t *Turn) isInterrupted() bool {
	select {
	case <-t.interrupted:
		return true
	default:
		return false
	}
}

// Interrupted is closed when the bot interrupts the turn.
func (t *Turn) Interrupted() <-chan struct{} { return t.interrupted }

// Session returns the turn's session.
func (t *Turn) Session() *Session { return t.s }

// Emit sends events to the bot.
func (t *Turn) Emit(evs ...engine.Event) { t.s.emit(evs...) }

// Start emits the system/init of the turn.
func (t *Turn) Start(model string) {
	t.Emit(engine.SessionStarted{SessionID: t.s.id, Model: model, PermissionMode: t.s.Mode()})
}

// Ask emits an approval request and waits for the answer, an interrupt or
// the session's end.
func (t *Turn) Ask(req engine.ApprovalRequest) Decision {
	ch := make(chan Decision, 1)
	t.s.mu.Lock()
	if t.s.closed {
		t.s.mu.Unlock()
		return Decision{Closed: true}
	}
	t.s.pending[req.RequestID] = ch
	t.s.mu.Unlock()
	t.Emit(req)
	select {
	case d := <-ch:
		return d
	case <-t.interrupted:
		t.s.mu.Lock()
		delete(t.s.pending, req.RequestID)
		t.s.mu.Unlock()
		return Decision{Interrupted: true}
	}
}

// Withdraw takes a pending request back, as the CLI does after an
// interrupt (control_cancel_request): ApprovalCancelled is emitted, then
// the Ask waiting for it returns a Withdrawn decision; a later answer to it
// is refused like any unknown request (see Stray). Call it from another
// goroutine than the one blocked in Ask.
func (t *Turn) Withdraw(requestID string) {
	t.s.mu.Lock()
	ch, ok := t.s.pending[requestID]
	delete(t.s.pending, requestID)
	t.s.mu.Unlock()
	t.Emit(engine.ApprovalCancelled{RequestID: requestID})
	if ok {
		ch <- Decision{Withdrawn: true}
	}
}

// Complete ends the turn with an answer costing TurnCost.
func (t *Turn) Complete(result string) { t.CompleteCosting(result, TurnCost) }

// CompleteCosting ends the turn with an answer costing usd; the result
// carries the session's running total, as the CLI's does.
func (t *Turn) CompleteCosting(result string, usd float64) {
	t.Emit(engine.TurnCompleted{SessionID: t.s.id, OK: true, Outcome: engine.OutcomeDone, Reason: "success/completed", Result: result, NumTurns: 1,
		SessionCostUSD: t.s.ledger.add(t.s.id, usd), Duration: 1500 * time.Millisecond,
		Usage: engine.Usage{InputTokens: 1200, OutputTokens: 340}})
}

// Aborted ends the turn as the CLI does after an interrupt (nothing spent).
func (t *Turn) Aborted() {
	t.Emit(engine.TurnCompleted{SessionID: t.s.id, Outcome: engine.OutcomeCancelled, Reason: "error_during_execution/aborted_streaming",
		ErrorText: "interrupted", SessionCostUSD: t.s.ledger.Total(t.s.id)})
}

// Fail ends the turn with an error result (e.g. an API error).
func (t *Turn) Fail(msg string) {
	t.Emit(engine.TurnCompleted{SessionID: t.s.id, Outcome: engine.OutcomeFailed, Reason: "success/api_error", Result: msg, ErrorText: msg,
		SessionCostUSD: t.s.ledger.Total(t.s.id)})
}

// LimitReached ends the turn as the CLI does when the subscription's usage
// limit (e.g. "five_hour") is used up until resets: a rate_limit_event
// "rejected", then an api_error result, no retry (docs/protocol.md).
func (t *Turn) LimitReached(limit string, resets time.Time) {
	msg := "You've hit your limit · resets " + resets.Format("3:04pm")
	t.Emit(engine.RateLimited{Status: engine.LimitReached, Limit: limit, ResetsAt: resets},
		engine.TurnCompleted{SessionID: t.s.id, Outcome: engine.OutcomeUsageLimit, Reason: "success/api_error/usage_limit_reached",
			Result: msg, ErrorText: msg, NumTurns: 1, SessionCostUSD: t.s.ledger.Total(t.s.id)})
}

// OverBudget ends the turn as the CLI does when --max-budget-usd of limit
// is reached, after a model call costing usd (docs/protocol.md).
func (t *Turn) OverBudget(limit, usd float64) {
	msg := "Reached maximum budget ($" + strconv.FormatFloat(limit, 'f', -1, 64) + ")"
	t.Emit(engine.TurnCompleted{SessionID: t.s.id, Outcome: engine.OutcomeBudgetStop, Reason: "error_max_budget_usd/budget_exhausted",
		ErrorText: msg, NumTurns: 1, SessionCostUSD: t.s.ledger.add(t.s.id, usd), Duration: 900 * time.Millisecond})
}

// Crash ends the process mid-turn.
func (t *Turn) Crash(code int, stderr string) {
	t.crashed = true
	t.s.finish(engine.Exited{ExitCode: code, StderrTail: stderr, MidTurn: true, Err: errors.New("claude exited without finishing the turn")})
}
