package engine

import "context"

// Steerer is a Conn that takes a message into its running turn: the agent
// reads it at its next step (Claude Code: its next model request, after
// the running tool) and one answer covers both. A turn already writing its
// answer makes no further step: the message then runs as a turn of its
// own right after that answer, without being sent again. The agent
// reports what became of it by id in PromptState events; a Conn that
// steers also drops the messages it still holds when interrupted.
type Steerer interface {
	// Steer writes text as a user message with the caller's id (a UUID).
	// nil: the agent has it, and reports it taken (PromptStarted) or
	// dropped (PromptCancelled, before the TurnCompleted of the turn it
	// was meant for), or runs it as its next turn (Claude Code). An error:
	// the agent does not have it (Codex with no turn running): the caller
	// runs it itself. A line handed to the agent's input stays sent when
	// ctx ends before it is written or answered (a held agent's link may
	// be down): Steer returns nil, and the agent's events settle it. The caller settles a message only once its Steer
	// returned (a turn may end during the call).
	Steer(ctx context.Context, id, text string) error
}

// PromptStage is where a message the agent holds stands.
type PromptStage int

const (
	// PromptQueued: the agent holds it, not read yet.
	PromptQueued PromptStage = iota + 1
	// PromptStarted: the agent has taken it (into the running turn, or as
	// a turn of its own when none ran).
	PromptStarted
	// PromptCompleted: the turn that took it answered.
	PromptCompleted
	// PromptCancelled: dropped unread (an interrupt).
	PromptCancelled
)

// PromptState says where a message the bot gave the agent under an id
// stands (Steerer, PromptIDs).
type PromptState struct {
	ID    string
	Stage PromptStage
}

func (PromptState) event() {}
