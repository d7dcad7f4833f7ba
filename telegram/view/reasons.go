package view

import "github.com/untether/untether/chat"

// Why pending approvals were cancelled or a Claude process was closed: the
// core's words, which the owner reads in a prompt's outcome and Claude as
// the deny message.
const (
	ReasonTurnEnded          = chat.ReasonTurnEnded
	ReasonTurnCancelled      = chat.ReasonTurnCancelled
	ReasonBotStopping        = chat.ReasonBotStopping
	ReasonIdle               = chat.ReasonIdle
	ReasonEvicted            = chat.ReasonEvicted
	ReasonSettingsChanged    = chat.ReasonSettingsChanged
	ReasonNewSession         = chat.ReasonNewSession
	ReasonInterruptFailed    = chat.ReasonInterruptFailed
	ReasonContinuedElsewhere = chat.ReasonContinuedElsewhere
	ReasonNoTurn             = chat.ReasonNoTurn
)

// SessionClosed is the reason given to pending approvals when their Claude
// process is closed.
func SessionClosed(why string) string { return chat.SessionClosed(why) }
