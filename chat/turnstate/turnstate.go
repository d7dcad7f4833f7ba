// Package turnstate is what one turn knows, folded from the engine's
// events: the phase it is in, the actions Claude ran, the text it wrote
// (whole and as it is being written), and what the owner cannot see from
// the phone (a usage limit, API retries, a compaction). Events in, state
// out: it knows no Telegram, no bot and no outbox. Its values (the phase,
// the actions, the notes) are the conversation core's own words: a
// frontend renders them (telegram/view) and never decides by their text.
package turnstate

import (
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/toolkinds"
)

// Phase is where a turn is. Its values are names, not texts: each
// frontend says them in its own words.
type Phase string

// The phases of a turn.
const (
	PhaseStarting      Phase = "starting"
	PhaseWorking       Phase = "working"
	PhaseWaiting       Phase = "waiting"
	PhaseCancelling    Phase = "cancelling"
	PhaseCancelled     Phase = "cancelled"
	PhaseDone          Phase = "done"
	PhaseFailed        Phase = "failed"
	PhaseBudgetStopped Phase = "budget_stopped"
	PhaseLimitStopped  Phase = "limit_stopped"
	PhaseShuttingDown  Phase = "shutting_down"
)

// ActionState is where one action of a turn stands.
type ActionState int

const (
	Running ActionState = iota
	Done
	Failed
)

// Action is one tool call of a turn.
type Action struct {
	ID     string
	Kind   toolkinds.Kind
	Title  string // short, from toolkinds.Describe; a view cuts it again anyway
	State  ActionState
	Detail string // result summary
}

// Retry is an API call the agent waits to repeat.
type Retry struct {
	Attempt, Max int
	Delay        time.Duration
	HTTPStatus   int
	Error        string // the engine's name: "rate_limit", "overloaded", ...
}

// Stall is a tool running while the agent has said nothing for a while.
type Stall struct {
	Kind  toolkinds.Kind
	Title string        // the tool's title, as in the action lines
	For   time.Duration // since the last news from the agent
	// Busy says the tool's processes use the CPU (a build, tests): it
	// works, it is not stuck.
	Busy bool
}

// Compaction is the conversation being or having been compacted.
type Compaction struct {
	Running   bool
	Auto      bool // the context was full; else asked for (/compact)
	Pre, Post int  // tokens before and after; 0: not reported
}

// State is one turn's state. The zero value is not ready: use New.
type State struct {
	// Phase is where the turn is; the turn sets the phases the events do
	// not tell.
	Phase Phase
	// Actions are the tool calls of the turn in order (not a subagent's).
	Actions []Action
	index   map[string]int // tool use id → its place in Actions
	// LastText is the last complete text block Claude wrote.
	LastText string
	// Stream is the text block Claude is writing, as far as it came.
	Stream     string
	streamDone bool // Stream is complete: the next delta starts another
	// SawInit is set once the session's start (system/init) was seen.
	SawInit bool
	// Limit is a usage limit that stops the turn, nil while none does.
	Limit *engine.RateLimited
	// Retry is an API call Claude waits to repeat, nil once one went
	// through.
	Retry *Retry
	// Compaction is the conversation being or having been compacted.
	Compaction *Compaction
}

// New is a turn's state before anything happened.
func New() *State {
	return &State{Phase: PhaseStarting, index: map[string]int{}}
}

// Apply folds ev into the state and reports whether anything the progress
// message shows changed. Claude's text as it is written (Text with
// Partial) is left to AppendStream: whether it is shown at all is the
// presentation's choice. A subagent's actions and text are left out: the
// Task line stands for them.
func (s *State) Apply(ev engine.Event) (changed bool) {
	if _, retry := ev.(engine.APIRetry); !retry && s.Retry != nil {
		s.Retry = nil // any other news: the call went through
		changed = true
	}
	return s.apply(ev) || changed
}

func (s *State) apply(ev engine.Event) bool {
	switch e := ev.(type) {
	case engine.SessionStarted:
		s.SawInit = true
		return true
	case engine.ActionStarted:
		if e.ParentToolUseID != "" {
			return false
		}
		if i, ok := s.index[e.ToolUseID]; ok {
			// The command as written so far (Partial), or complete now.
			s.Actions[i].Kind, s.Actions[i].Title = e.Kind, e.Title
			return true
		}
		s.index[e.ToolUseID] = len(s.Actions)
		s.Actions = append(s.Actions, Action{ID: e.ToolUseID, Kind: e.Kind, Title: e.Title, State: Running})
		return true
	case engine.ActionCompleted:
		i, ok := s.index[e.ToolUseID]
		if !ok {
			return false
		}
		s.Actions[i].State = Done
		if !e.OK {
			s.Actions[i].State = Failed
		}
		s.Actions[i].Detail = e.Detail
		return true
	case engine.Text:
		if e.ParentToolUseID != "" || e.Partial {
			return false
		}
		s.LastText = e.Text
		s.streamDone = true
		return true
	case engine.PermissionModeChanged:
		return true
	case engine.RateLimited:
		switch {
		case e.Status == engine.LimitReached && !e.UsingOverage:
			s.Limit = &e // the turn ends: its final message says so
		case e.Status == engine.LimitAllowed:
			s.Limit = nil
		}
		return true
	case engine.APIRetry:
		s.Retry = &Retry{Attempt: e.Attempt, Max: e.MaxRetries, Delay: e.Delay, HTTPStatus: e.HTTPStatus, Error: e.Error}
		return true
	case engine.Compacting:
		s.Compaction = &Compaction{Running: true}
		return true
	case engine.Compacted:
		s.Compaction = &Compaction{Auto: e.Trigger == "auto", Pre: e.PreTokens, Post: e.PostTokens}
		return true
	}
	return false
}

// AppendStream adds a piece of the text block Claude is writing; after a
// complete block it starts the next one. It returns the block so far.
func (s *State) AppendStream(delta string) string {
	if s.streamDone { // a new block: it is shown alone
		s.Stream, s.streamDone = "", false
	}
	s.Stream += delta
	return s.Stream
}

// Running is the last action still running, nil when none is.
func (s *State) Running() *Action {
	for i := len(s.Actions) - 1; i >= 0; i-- {
		if s.Actions[i].State == Running {
			return &s.Actions[i]
		}
	}
	return nil
}
