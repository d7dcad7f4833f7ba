package chat

import (
	"context"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// Place is where a conversation lives in the frontend that owns it: a chat
// and a topic of it (Thread 0: none). Message ids (replyTo, MessageID) are
// that frontend's too; the core keeps them and hands them back, never
// reads them.
type Place struct {
	ChatID int64
	Thread int
}

// Surface is the frontend that owns conversations: the core calls it to
// show what happens in one. Its methods must not block on the outside world
// for long: a slow network is the frontend's to absorb (an outbox).
type Surface interface {
	// Note tells the conversation something, as a reply to its message
	// replyTo (0: none).
	Note(p Place, replyTo int, n Note)
	// Queued says message msgID waits behind the running turn, ahead
	// messages before it; a run no one typed (origin) has no message of
	// its own yet.
	Queued(p Place, msgID int, origin *prefs.Origin, ahead int)
	// QueueDropped: the waiting messages of the conversation were dropped
	// (reset); what Queued showed for them is forgotten.
	QueueDropped(p Place)
	// Announce shows the first message of a run no one typed (scheduled,
	// triggered) and returns its id, which the turn then answers; 0 when
	// it could not be shown.
	Announce(ctx context.Context, p Place, qp prefs.QueuedPrompt) int
	// StartTurn begins showing a turn. Every method of the TurnSurface it
	// returns is called on the turn's goroutine.
	StartTurn(ts TurnStart) TurnSurface
	// SessionStarted: an agent process started for the conversation in
	// dir on machine (its commands may differ from the last one's).
	SessionStarted(ctx context.Context, p Place, machine, dir string)
	// PromptResolved: a request shown by TurnSurface.Prompt was answered,
	// timed out or cancelled, by whoever and from wherever.
	PromptResolved(r approvals.Resolution)
}

// TurnStart is what a frontend is told when a turn starts.
type TurnStart struct {
	Key   string
	Place Place
	// MessageID is the message the turn answers.
	MessageID int
	Started   time.Time
	// Adopted: a previous bot process began the turn, whose agent went on
	// (a held session): its messages are the frontend's to find again.
	Adopted bool
	// Turn reads the turn's state and records its answer's delivery.
	Turn TurnInfo
}

// TurnInfo is the turn as a frontend may read it, on the turn's goroutine.
type TurnInfo interface {
	// Snapshot is the turn as it stands.
	Snapshot() TurnSnapshot
	// Delivered records that n messages of the answer reached the
	// frontend (all: every one did), so that a start after a restart sends
	// only the rest; Sent is what was recorded so far.
	Delivered(n int, all bool)
	Sent() (n int, all bool)
	// Undelivered says the bot stopped before the answer went out: the
	// turn's record stays for the next start.
	Undelivered()
}

// TurnSnapshot is what a view of a running turn shows.
type TurnSnapshot struct {
	Phase   turnstate.Phase
	Started time.Time
	Actions []turnstate.Action
	// Model and Mode as the agent reported them, else the settings.
	Model, Mode string
	Verbose     bool
	LastText    string
	// Stream is the text block being written, as far as it came.
	Stream string
	// Queued is how many messages wait behind the turn.
	Queued     int
	Limit      *engine.RateLimited
	Retry      *turnstate.Retry
	Compaction *turnstate.Compaction
	Stall      *turnstate.Stall
}

// TurnSurface shows one turn. The core calls it on the turn's goroutine,
// in order; it owns whatever messages show the turn.
type TurnSurface interface {
	// Inputs makes the message ready for the agent (files fetched, a
	// recording transcribed): its text then says where the files are. An
	// error means nothing runs; Failed shows it (FailInput).
	Inputs(ctx context.Context, qp prefs.QueuedPrompt) (prefs.QueuedPrompt, error)
	// AgentText is text as the agent gets it: a frontend's name for one
	// of the agent's commands mapped back.
	AgentText(ctx context.Context, machine, dir, text string) string

	// Wake fires when the surface has work on the turn's goroutine (a
	// timer, a message id arriving): the turn then calls Woken.
	Wake() <-chan struct{}
	Woken(ctx context.Context)
	// Refresh is called after each step of the turn; changed says what it
	// shows changed.
	Refresh(changed bool)
	// Streamed is the text block being written, so far.
	Streamed(text string)
	// ActionsChanged: an action started or ended.
	ActionsChanged()
	// Pause: the turn waits for the owner (on) or goes on.
	Pause(on bool)
	// WaitingForSlot: the turn waits for one of max live processes.
	WaitingForSlot(max int)
	// StartDelayed: the turn's agent cannot start at once (Starts): the
	// frontend shows now that the message is being handled, which it
	// would otherwise show only a moment later (a burst's waits last
	// seconds).
	StartDelayed()
	// WaitingToStart: the turn's agent waits its turn to start (Starts),
	// ahead starts before it; said only of a wait past StartNoticeAfter.
	WaitingToStart(ahead int)

	// Prompt shows an approval request the owner has to answer.
	Prompt(ctx context.Context, p *approvals.Prompt)
	// AutoDenied: a request was refused by the rules, with why.
	AutoDenied(reason, message string)
	// Replayed: an adopted turn's replay ended; prompts shown before the
	// restart and not asked again are stale.
	Replayed(ctx context.Context)
	// Stalled asks once whether to keep waiting for a quiet tool; Unstalled
	// settles that question (moved: the agent went on; else the turn ended).
	Stalled(s turnstate.Stall, since time.Time)
	Unstalled(moved bool)

	// The end of the turn, one of these, then Close.
	Answer(ctx context.Context, f Final)
	Cancelled(ctx context.Context, beforeStart bool)
	Failed(ctx context.Context, f Failure)
	Stopping(ctx context.Context)
	// Close ends the turn's messages (ok: it answered).
	Close(ctx context.Context, ok bool)
	// Leave ends the turn's part in this bot process while the agent goes
	// on (the bot stops; a held session).
	Leave()
	// Stop ends whatever still shows the turn as running; a backstop.
	Stop()
}

// Final is a turn's end with its answer, or its stop at a limit.
type Final struct {
	Outcome Outcome
	// Result is the answer (OutcomeDone).
	Result string
	// Cost is what this turn cost, in USD.
	Cost          float64
	Duration      time.Duration
	Turns         int
	InTokens      int
	OutTokens     int
	ContextTokens int
	ContextWindow int
	// OK: the footer shows no error (the turn answered, or stopped at the
	// spending limit it was given).
	OK      bool
	Changes ChangeStat
	// Undo offers to undo the turn's file changes; nil when there are none
	// the engine can undo. NoUndo: the engine can undo, but the changes
	// the turn made (Changes) were not its tools' (shell commands).
	Undo   *UndoOffer
	NoUndo bool
	// Desk is the command that continues the session at the desk ("": not
	// shown).
	Desk string
	// Engine names the agent that answered when the machine offers more
	// than one ("": not shown).
	Engine string
	// MaxTurnUSD is the limit a budget stop met.
	MaxTurnUSD float64
	// Anyway is the offer to run the prompt past the limit that stopped it
	// (OutcomeBudgetStop): a token for Core.RunAnyway, "" when none.
	Anyway string
	// Overrun is the limits the turn ran past (a Run anyway), 0 when none.
	Overrun Overrun
	// Limit is the usage limit a limit stop met, nil when not told.
	Limit *engine.RateLimited
	// Error is the agent's text of a failed turn.
	Error string
}

// Outcome is how a turn ended.
type Outcome int

const (
	OutcomeDone Outcome = iota
	OutcomeBudgetStop
	OutcomeLimitStop
	OutcomeFailed
)

// ChangeStat is what a turn changed in its repository.
type ChangeStat struct {
	Files, Added, Removed int
}

// FailureKind says why a turn failed outside the agent's own answer.
type FailureKind int

const (
	FailStart       FailureKind = iota // the agent could not be started (Detail)
	FailNotFound                       // the agent's program was not found
	FailExited                         // the agent exited mid-turn
	FailUnreachable                    // the machine did not answer
	FailDailyBudget                    // today's spend reached the daily budget
	FailInput                          // Inputs failed (Err)
)

// Failure is a turn that failed outside the agent's own answer.
type Failure struct {
	Kind FailureKind
	// Detail is the error's text (redacted), StderrTail the agent's last
	// words on stderr.
	Detail, StderrTail string
	ExitCode           int
	Signal             string
	// Machine is the unreachable one, Others the machines the conversation
	// could move to.
	Machine string
	Others  []string
	// Spent and Budget: FailDailyBudget, and Anyway its offer to run the
	// prompt past the budget once (a token for Core.RunAnyway).
	Spent, Budget float64
	Anyway        string
	// Err is the frontend's own error (FailInput).
	Err error
}
