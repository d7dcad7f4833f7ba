package chat

import (
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
)

// Note is something the core tells a conversation: a value of one of the
// Note… types below, which the frontend says in its own words.
type Note interface{ note() }

// NoteNotAllowed: a queued message was not run, its sender (or, Chat, the
// chat) is no longer allowed.
type NoteNotAllowed struct{ Chat bool }

// NoteContinuedElsewhere: the session got prompts from another place (the
// desk) since the last turn here: it is resumed with that history.
type NoteContinuedElsewhere struct{}

// NoteResumeFailed: the stored session could not be resumed; a fresh one
// starts.
type NoteResumeFailed struct{}

// NoteUsageWarning: a usage limit passed a threshold, or was reached with
// extra usage paying on.
type NoteUsageWarning struct{ Limit engine.RateLimited }

// NoteWorkDirFallback: the conversation's directory can no longer be used;
// it works in Default now.
type NoteWorkDirFallback struct {
	Stored   string
	Why      DirProblem
	Resolved string
	Default  string
}

// NoteBilling: a turn's agent said how it pays for its model calls
// (engine.SessionStarted.Billing), running the prompt of origin (nil:
// typed).
type NoteBilling struct {
	Billing engine.Billing
	Origin  *prefs.Origin
}

// NoteSkipped: a message accepted before a restart was too old to run.
type NoteSkipped struct{ Age time.Duration }

func (NoteNotAllowed) note()         {}
func (NoteContinuedElsewhere) note() {}
func (NoteResumeFailed) note()       {}
func (NoteUsageWarning) note()       {}
func (NoteWorkDirFallback) note()    {}
func (NoteBilling) note()            {}
func (NoteSkipped) note()            {}

// DirProblem says why a conversation's stored working directory cannot be
// used.
type DirProblem int

const (
	DirGone         DirProblem = iota // it no longer exists
	DirNotDir                         // it is no longer a directory
	DirLeadsOutside                   // a link in it now leads outside the project roots
	DirOutsideRoots                   // it is no longer inside the project roots
	DirInvisible                      // its name holds an invisible or direction-changing character
)

// HeldStop is a turn a previous bot process began that cannot go on, why,
// and on which machine.
type HeldStop struct {
	Why     HeldEnd
	Machine string
}

// HeldEnd says why a turn a previous bot process began cannot go on after
// a restart.
type HeldEnd int

const (
	HeldRestarted    HeldEnd = iota // not held: the restart ended it
	HeldGone                        // the agent's process ended while the bot was down
	HeldOtherVersion                // held by another version of untether
	HeldUnreachable                 // its machine did not answer
	HeldChatRefused                 // its chat is no longer allowed
	HeldUserRefused                 // its user is no longer allowed
	HeldDirRefused                  // its directory is no longer one a session may start in
)

// Why pending approvals were cancelled or an agent process was closed. The
// owner reads them in a prompt's outcome ("Cancelled — the turn ended") and
// the agent reads the same words as the deny message, so they are plain
// text.
const (
	ReasonTurnEnded          = "the turn ended"
	ReasonTurnCancelled      = "the turn was cancelled"
	ReasonBotStopping        = "bot stopping"
	ReasonIdle               = "idle"
	ReasonEvicted            = "evicted for another chat"
	ReasonSettingsChanged    = "settings changed"
	ReasonNewSession         = "new session"
	ReasonInterruptFailed    = "interrupt failed"
	ReasonContinuedElsewhere = "continued elsewhere"
	// ReasonNoTurn answers a request the agent makes between turns.
	ReasonNoTurn = "No turn is running; ask again in a turn."
)

// SessionClosed is the reason given to pending approvals when their agent
// process is closed, why being one of the Reason… values above.
func SessionClosed(why string) string { return "the Claude session was closed (" + why + ")" }
