package engine

import (
	"encoding/json"
	"time"

	"github.com/untether/untether/toolkinds"
)

// Event is one normalized thing that happened in a Claude Code session.
// The concrete types below are the whole set; consumers switch on them and
// ignore what they do not know.
type Event interface{ event() }

// SessionStarted comes from system/init, which the CLI sends at the start of
// every turn (not at process start), so consumers see it once per turn.
type SessionStarted struct {
	SessionID      string
	Model          string
	Cwd            string
	PermissionMode string
	Tools          []string
	Version        string
	// Billing is how the agent pays for its model calls, as it says;
	// BillingUnknown when it does not say.
	Billing Billing
}

// Billing is how an agent pays for its model calls.
type Billing string

const (
	// BillingUnknown: the agent did not say.
	BillingUnknown Billing = ""
	// BillingSubscription: a consumer subscription login (claude.ai),
	// whose terms restrict automated use (docs/schedules.md).
	BillingSubscription Billing = "subscription"
	// BillingAPIKey: an API key (from the environment, a helper, …).
	BillingAPIKey Billing = "api_key"
)

// ActionStarted is a tool_use block from the assistant.
type ActionStarted struct {
	ToolUseID string
	// ParentToolUseID is set when the tool call belongs to a subagent.
	ParentToolUseID string
	Tool            string
	Kind            toolkinds.Kind
	Title           string
	Input           json.RawMessage
	// Partial marks a tool call still being written (partial messages):
	// Title is made from the input so far, Input is empty. The complete
	// call follows as an ActionStarted with the same ToolUseID.
	Partial bool
}

// ActionCompleted is the tool_result for an earlier ActionStarted.
type ActionCompleted struct {
	ToolUseID       string
	ParentToolUseID string
	OK              bool
	// Detail is a short, single-line excerpt of the result (or the error).
	Detail string
}

// Text is assistant text. With partial messages on, Partial events carry
// deltas as they stream; the full block still arrives as a non-partial Text.
type Text struct {
	MessageID       string
	ParentToolUseID string
	Text            string
	Partial         bool
}

// Thinking is an assistant thinking block.
type Thinking struct {
	MessageID string
	Text      string
}

// ApprovalRequest asks whether the agent may go on (Claude Code: a
// can_use_tool control request): the agent waits until it is answered with
// Conn.Allow or Conn.Deny. Kind says what it asks about; the other fields
// are the engine's extras, each optional, which the bot shows and which
// the owner's allow rules (written in the agent's own syntax) match.
type ApprovalRequest struct {
	RequestID string
	Kind      RequestKind
	// ToolName is the agent's own name of the tool ("Bash", "Edit").
	ToolName    string
	DisplayName string
	// Input is the tool's input as the agent wrote it; an answer to a
	// question or a plan goes back in it (Conn.Allow's updatedInput).
	Input json.RawMessage
	// Suggestions are the agent's own offers to remember the answer
	// (Claude Code's permission_suggestions), passed back as
	// updatedPermissions when the user chooses one.
	Suggestions []json.RawMessage
	ToolUseID   string
	BlockedPath string
	Description string
	// DecisionReasonType says why the CLI asks: "safetyCheck" (its own
	// safety checks flagged the call), "workingDir" (a path outside the
	// working directory), "subcommandResults" (a compound Bash command),
	// "" for an ordinary ask; see docs/protocol.md.
	DecisionReasonType string
	// ClassifierApprovable is nil unless a safety check is behind the ask
	// (also one nested in a compound command); false means the CLI wants
	// a person to decide (rm -rf /).
	ClassifierApprovable    *bool
	RequiresUserInteraction bool
}

// RequestKind is what an approval request asks about, in the bot's words:
// each engine maps its agent's tools to one of these.
type RequestKind string

const (
	// RequestCommand: run a shell command.
	RequestCommand RequestKind = "command"
	// RequestFileChange: write, edit or create a file.
	RequestFileChange RequestKind = "file_change"
	// RequestTool: any other tool (reads, searches, fetches, MCP tools);
	// also a request whose kind the engine does not know.
	RequestTool RequestKind = "tool"
	// RequestQuestion: the agent asks the user questions; the answers go
	// back in the input.
	RequestQuestion RequestKind = "question"
	// RequestPlan: the agent presents its plan and asks to leave plan
	// mode and carry it out.
	RequestPlan RequestKind = "plan"
)

// ApprovalCancelled means the CLI withdrew a request (control_cancel_request),
// e.g. after an interrupt: answering it is no longer possible or needed.
type ApprovalCancelled struct {
	RequestID string
}

// PermissionModeChanged comes from system/status lines that carry a mode.
type PermissionModeChanged struct {
	Mode string
}

// PermissionDenied is a tool the CLI refused on its own (system/permission_denied).
type PermissionDenied struct {
	ToolName  string
	ToolUseID string
	Message   string
}

// Compacting is a system/status "compacting" line: the CLI is summarizing
// the conversation (a manual /compact, or an automatic one when the context
// is nearly full, before the turn's model call). Compacted follows.
type Compacting struct{}

// Compacted marks a compact_boundary: the CLI summarized the conversation.
// Trigger is "manual" (/compact) or "auto"; the token counts are the
// context before and after, 0 when not reported.
type Compacted struct {
	Trigger    string
	PreTokens  int
	PostTokens int
}

// APIRetry is a system/api_retry line: a model call failed (a 429 without
// a usage limit, a 529, a 5xx) and the CLI waits Delay before attempt
// Attempt+1 of MaxRetries.
type APIRetry struct {
	Attempt    int
	MaxRetries int
	Delay      time.Duration
	HTTPStatus int    // error_status, 0 for a connection error
	Error      string // e.g. "rate_limit", "overloaded"
}

// Usage is the token count of a turn.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// Denial is one entry of a result's permission_denials.
type Denial struct {
	ToolName  string          `json:"tool_name"`
	ToolUseID string          `json:"tool_use_id"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// TurnCompleted ends a turn. OK is Outcome == OutcomeDone.
type TurnCompleted struct {
	SessionID string
	OK        bool
	// Outcome is how the turn ended, decided by the engine from its
	// agent's own report.
	Outcome Outcome
	// Reason is the agent's own words for how the turn ended, for logs
	// only (Claude Code: its subtype, terminal_reason and api_error).
	Reason    string
	Result    string
	ErrorText string
	// SessionCostUSD is what the session has cost so far, all its turns
	// together, as the engine counts it: it keeps growing from turn to
	// turn, also in a new process that resumes the session and after a
	// re-attach; a new session id starts again at 0. 0 when the engine
	// gave no figure. A turn's own cost is the increase over the figure
	// of the session's previous turn, which the bot keeps per session
	// (prefs.Store.RecordTurnCost): a Conn that takes a session over
	// does not know it, and a result replayed after a re-attach must not
	// count twice (docs/protocol.md).
	SessionCostUSD float64
	Duration       time.Duration
	APIDuration    time.Duration
	NumTurns       int
	Usage          Usage
	Denials        []Denial
	// ContextTokens is how much of the context window the conversation
	// fills: the input of the turn's last main-thread model call (cached
	// and uncached), 0 when the turn made none. ContextWindow is that
	// model's window from the result's modelUsage, 0 when not reported.
	ContextTokens int
	ContextWindow int
}

// Outcome is how a turn ended, in the bot's words: each engine maps its
// agent's report to one of these.
type Outcome string

const (
	// OutcomeDone: the turn ended with an answer.
	OutcomeDone Outcome = "done"
	// OutcomeCancelled: the turn was interrupted (Conn.Interrupt).
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeFailed: any other error (an API error, a crash's result).
	OutcomeFailed Outcome = "failed"
	// OutcomeBudgetStop: the agent stopped at the spending limit it was
	// started with (Claude Code's --max-budget-usd, the bot's
	// max_turn_usd).
	OutcomeBudgetStop Outcome = "budget_stop"
	// OutcomeUsageLimit: the account's usage limit is reached (a
	// subscription's; see RateLimited).
	OutcomeUsageLimit Outcome = "usage_limit"
)

// RateLimited mirrors rate_limit_event: the state of the account's usage
// limits changed. Only subscriptions (claude.ai login) have them; with an
// API key the CLI sends none. The CLI sends one when the state changes,
// not on every call.
type RateLimited struct {
	// Status is the limit's state; LimitUnknown for one this version of
	// the engine cannot read.
	Status LimitStatus
	// Limit names the limit: "five_hour", "seven_day", "seven_day_opus",
	// "seven_day_sonnet", "overage", ... ("" when not given).
	Limit    string
	ResetsAt time.Time // zero when not given
	// Utilization is the share of the limit used, 0..1; 0 when not given.
	Utilization  float64
	UsingOverage bool
	Raw          json.RawMessage
}

// LimitStatus is the state of a usage limit, in the bot's words.
type LimitStatus string

const (
	LimitUnknown LimitStatus = ""
	// LimitAllowed: within the limit.
	LimitAllowed LimitStatus = "allowed"
	// LimitWarning: a threshold of the limit was passed.
	LimitWarning LimitStatus = "warning"
	// LimitReached: the limit is used up; unless extra usage pays for it
	// (RateLimited.UsingOverage) the turn ends with OutcomeUsageLimit.
	LimitReached LimitStatus = "reached"
)

// Exited is always the last event of a process. Err is set when the process
// could not be waited for or ended without a result mid-turn.
type Exited struct {
	ExitCode   int
	Signal     string
	StderrTail string
	// MidTurn is true when the process ended while a turn was running.
	MidTurn bool
	Err     error
}

func (SessionStarted) event()        {}
func (ActionStarted) event()         {}
func (ActionCompleted) event()       {}
func (Text) event()                  {}
func (Thinking) event()              {}
func (ApprovalRequest) event()       {}
func (ApprovalCancelled) event()     {}
func (PermissionModeChanged) event() {}
func (PermissionDenied) event()      {}
func (Compacting) event()            {}
func (Compacted) event()             {}
func (APIRetry) event()              {}
func (TurnCompleted) event()         {}
func (RateLimited) event()           {}
func (Exited) event()                {}
