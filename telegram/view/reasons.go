package view

// Why pending approvals were cancelled or a Claude process was closed. The
// owner reads them in a prompt's outcome ("Cancelled — the turn ended") and
// Claude reads the same words as the deny message, so they are plain text.
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
	// ReasonNoTurn answers a request the CLI makes between turns.
	ReasonNoTurn = "No turn is running; ask again in a turn."
)

// SessionClosed is the reason given to pending approvals when their Claude
// process is closed, why being one of the Reason… values above.
func SessionClosed(why string) string { return "the Claude session was closed (" + why + ")" }
