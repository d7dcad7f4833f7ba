package approvals

import (
	"context"
	"encoding/json"
	"time"

	"github.com/untether/untether/engine"
)

// Responder writes the answer to one can_use_tool request of a live Claude
// Code session. The runner's Session implements it. Errors (e.g. the process
// is gone) are returned to the caller of the broker, never swallowed.
type Responder interface {
	Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error
	Deny(ctx context.Context, requestID, message string, interrupt bool) error
}

// Request is one approval request plus the session it belongs to. The bot
// copies the first fields from engine.ApprovalRequest and fills the rest
// from its session state. The broker decides on Kind; ToolName and the
// fields after it are the engine's extras (optional), which allow rules
// (in the agent's own syntax) and prompts use.
type Request struct {
	RequestID   string
	Kind        engine.RequestKind
	ToolName    string
	Input       json.RawMessage
	Suggestions []json.RawMessage // permission_suggestions, opaque
	ToolUseID   string
	BlockedPath string
	Description string
	// DecisionReasonType is why Claude Code asks (decision_reason_type):
	// "safetyCheck" when its own safety checks flagged the call (a write to
	// .claude/, .git/, .mcp.json or a shell start-up file; rm -rf /),
	// "workingDir" for a path outside the working directory, "" for an
	// ordinary ask. See docs/protocol.md.
	DecisionReasonType string
	// ClassifierApprovable is the request's classifier_approvable, nil when
	// absent. Claude Code sets it whenever a safety check is behind the
	// ask, also one nested in a compound Bash command (whose
	// DecisionReasonType is then "subcommandResults").
	ClassifierApprovable *bool

	ChatID int64
	// SessionKey names the session and must be unique across chats
	// (e.g. "<chat>" or "<chat>:<topic>"): cooldown, outline gate and
	// CancelSession are keyed by it alone.
	SessionKey string
	// PermissionMode is the session's current permission mode, one of
	// engine.Modes; engine.ModeBypass means nothing is asked.
	PermissionMode string
	// PlanMode is the chat's plan-mode setting: PlanOn, PlanOff or PlanAuto.
	// With PlanAuto an ExitPlanMode is approved without asking.
	PlanMode string
	// WorkDir is the directory the session's process was started in, with
	// links resolved at that time, and UploadDir the chat's own upload
	// folder: with Config.Paths they make the session's path rule.
	// Relative paths in the input are taken from WorkDir. A WorkDir that
	// no longer resolves to itself holds nothing (scope.Rule.WorkDirResolved).
	WorkDir   string
	UploadDir string
	// Where is the machine the process runs on (the zero Where: the
	// broker's own, Config.Paths).
	Where Where
}

// IsQuestion reports that the request asks the user questions (it is
// answered, or dismissed, rather than allowed or denied).
func (r Request) IsQuestion() bool { return r.Kind == engine.RequestQuestion }

// SafetyCheck reports that Claude Code's own safety checks are behind the
// ask. Such a request is always shown to the owner (see decideLocked).
func (r Request) SafetyCheck() bool {
	return r.DecisionReasonType == "safetyCheck" || r.ClassifierApprovable != nil
}

// Plan-mode settings understood in Request.PlanMode. Anything other than
// PlanAuto behaves like PlanOn: ExitPlanMode goes to the user.
const (
	PlanOn   = "on"
	PlanOff  = "off"
	PlanAuto = "auto"
)

// Outcome is what became of a request (or of one press on it).
type Outcome string

const (
	OutcomeApproved      Outcome = "approved"
	OutcomeDenied        Outcome = "denied"
	OutcomeAlways        Outcome = "always"   // allowed with the suggestions as updatedPermissions
	OutcomeOutline       Outcome = "outline"  // ExitPlanMode denied with "write the outline first"
	OutcomeAnswered      Outcome = "answered" // AskUserQuestion allowed with answers
	OutcomeTimedOut      Outcome = "timed_out"
	OutcomeCancelled     Outcome = "cancelled"
	OutcomeWithdrawn     Outcome = "withdrawn"     // the CLI took the request back (control_cancel_request)
	OutcomeNextQuestion  Outcome = "next_question" // not final: show Result.Question
	OutcomeToggled       Outcome = "toggled"       // not final: multi-select changed, show Result.Question
	OutcomeAwaitingText  Outcome = "awaiting_text" // not final: the next text message is the answer
	OutcomeNothingChosen Outcome = "nothing_chosen"
	// OutcomeFailed: the answers to the questions could not be put into the
	// tool's input, so the request was denied instead.
	OutcomeFailed Outcome = "failed"
)

// Final reports whether the outcome ends the request.
func (o Outcome) Final() bool {
	switch o {
	case OutcomeNextQuestion, OutcomeToggled, OutcomeAwaitingText, OutcomeNothingChosen:
		return false
	}
	return true
}

// ActionKind is what a button does.
type ActionKind string

const (
	ActionApprove ActionKind = "approve"
	ActionDeny    ActionKind = "deny" // on questions: dismiss them all
	ActionAlways  ActionKind = "always"
	ActionOutline ActionKind = "outline" // Pause & Outline Plan
	ActionOption  ActionKind = "option"
	ActionDone    ActionKind = "done"
	ActionOther   ActionKind = "other"
)

// Action is one button: a suggested label and the token to put in its
// callback data.
type Action struct {
	Kind  ActionKind
	Label string
	Token string
}

// PromptKind selects how the bot renders a prompt.
type PromptKind string

const (
	KindTool     PromptKind = "tool"
	KindPlan     PromptKind = "plan"
	KindQuestion PromptKind = "question"
)

// Prompt describes what to show the user for a pending request.
type Prompt struct {
	Kind    PromptKind
	Request Request
	// Actions are the buttons for KindTool and KindPlan, in display order.
	// KindQuestion has all its buttons in Question.
	Actions []Action
	// Outside lists the paths (resolved, links followed) of a file tool's
	// request that lie outside the session's scope: the working directory,
	// the chat's upload folder and the owner's add_dirs, minus the bot's
	// own files and other chats' uploads.
	Outside []string
	// AlwaysAllow says in plain words what the AlwaysAllow button saves,
	// one line per suggestion (empty when there is no such button).
	AlwaysAllow []string
	// Plan and PlanFile come from an ExitPlanMode input.
	Plan     string
	PlanFile string
	Question *QuestionView
	Deadline time.Time // when the request times out unless answered
}

// Result is what a successful Press or TakeText did.
type Result struct {
	Outcome Outcome
	UserID  int64 // who decided
	Request Request
	// Question is the view to show now, for non-final question outcomes.
	Question *QuestionView
	// Toggled is, for OutcomeToggled, the index in Question.Options of the
	// option the press selected or unselected.
	Toggled int
	// Answers is what was sent for OutcomeAnswered (question text → answer).
	Answers map[string]string
	// Message is the deny message written to Claude, if any.
	Message string
}

// Final reports whether the request is resolved (no buttons left).
func (r Result) Final() bool { return r.Outcome.Final() }

// Resolution reports a request resolved without a press: timed out,
// cancelled or withdrawn. It goes to Config.OnResolved.
type Resolution struct {
	Outcome Outcome // OutcomeTimedOut, OutcomeCancelled or OutcomeWithdrawn
	Request Request
	Reason  string // why, in a few words ("timed out", the CancelSession reason)
	Message string // the deny message written to Claude ("" when withdrawn: nothing is written)
	Err     error  // the Responder's error, if the deny could not be written
	// By and Source are set for a press taken by a frontend that does not
	// own the conversation (chat.Core.PressElsewhere): who pressed, and where.
	By     string
	Source Source
}

// Source is where a press came from when not from the frontend that
// showed the prompt.
type Source string

// SourceWeb: the web view (package web).
const SourceWeb Source = "web"

// Submission is what Submit decided. Prompt is nil when the request was
// answered automatically; then Outcome, Reason and Message say how.
type Submission struct {
	Prompt  *Prompt
	Outcome Outcome // OutcomeApproved or OutcomeDenied when automatic
	Reason  string  // e.g. "allow list", "outline gate"
	Message string  // the deny message written to Claude, if any
}

// Auto reports whether the request was answered without asking.
func (s Submission) Auto() bool { return s.Prompt == nil }

// RefusalKind says why a press was refused.
type RefusalKind string

const (
	Stale        RefusalKind = "stale"        // unknown token, already answered, withdrawn, or session gone
	Unauthorized RefusalKind = "unauthorized" // the user may not answer
	ForeignChat  RefusalKind = "foreign_chat" // the button was pressed in another chat
)

// Refusal is the error Press returns when it does nothing; Kind says why.
// Use errors.As to get it.
type Refusal struct {
	Kind RefusalKind
}

func (r *Refusal) Error() string { return "approval press refused: " + string(r.Kind) }

func refuse(k RefusalKind) *Refusal { return &Refusal{Kind: k} }
