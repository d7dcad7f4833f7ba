package view

import "github.com/untether/untether/approvals"

// Toasts: the short texts a button press is answered with (Telegram shows
// them over the chat for a few seconds). They are plain text, not HTML.

const (
	// ToastNotAllowed answers a press from a user who is not allowed, or
	// in a chat that is not.
	ToastNotAllowed = "You are not allowed to answer this"
	// ToastTooManyPresses answers a press beyond the per-user limit.
	ToastTooManyPresses = "Too many presses: wait a few seconds"
	// ToastStale answers a press on an approval request that is no longer
	// pending: answered, timed out, cancelled, withdrawn by Claude, or from
	// before a restart.
	ToastStale = "This request is no longer pending"
	// ToastForeignChat answers a press on a button that belongs to another
	// chat's message.
	ToastForeignChat = "This button belongs to another chat"
	// ToastExpired answers a press on a button the bot no longer knows.
	ToastExpired = "This button has expired"
	// ToastNotAllowedToDo answers a press on a bot button (Cancel, a
	// /sessions entry) from a user who is not allowed.
	ToastNotAllowedToDo = "You are not allowed to do this"
)

// Toasts for a turn's Cancel button.
const (
	ToastCancelling = "Cancelling…"
	ToastTurnOver   = "This turn is already over"
)

// Toasts for the buttons of a /sessions list.
const (
	ToastSwitched      = "Switched"
	ToastSessionsStale = "This list is out of date: send /sessions again"
	ToastSessionBusy   = "A turn is running or queued: try again when it is over"
	ToastSessionDir    = "Its directory is no longer allowed or gone"
	// ToastSessionForeign: the session's file records that it started in
	// another directory (one the store files in the same folder).
	ToastSessionForeign = "That session belongs to another directory"
	ToastSwitchFailed   = "Could not switch: see the bot's log"
	ToastSessionInUse   = "It may be open elsewhere: confirm below"
	ToastNotResumed     = "Not resumed"
)

// PressToast answers a press on an approval or question button, from what
// the broker made of it; group says the chat is a group, where the bot
// takes only messages addressed to it.
func PressToast(res approvals.Result, group bool) string {
	switch res.Outcome {
	case approvals.OutcomeApproved:
		return "Approved"
	case approvals.OutcomeAlways:
		return "Always allowed"
	case approvals.OutcomeOutline:
		return "Outlining plan…"
	case approvals.OutcomeDenied:
		if res.Request.IsQuestion() {
			return "Dismissed"
		}
		return "Denied"
	case approvals.OutcomeToggled:
		if q := res.Question; q != nil && res.Toggled >= 0 && res.Toggled < len(q.Options) {
			o := q.Options[res.Toggled]
			if o.Selected {
				return "Selected: " + o.Label
			}
			return "Unselected: " + o.Label
		}
		return "Selection changed"
	case approvals.OutcomeNothingChosen:
		return "Choose at least one option, or Other"
	case approvals.OutcomeAwaitingText:
		if group {
			return "Reply to the question with your answer"
		}
		return "Send your answer as a message"
	case approvals.OutcomeNextQuestion:
		return "Next question"
	case approvals.OutcomeAnswered:
		return "Answered"
	case approvals.OutcomeFailed:
		return "Could not send the answers"
	}
	return ""
}

// RefusalToast answers a press the broker refused.
func RefusalToast(k approvals.RefusalKind) string {
	switch k {
	case approvals.Unauthorized:
		return ToastNotAllowed
	case approvals.ForeignChat:
		return ToastForeignChat
	}
	return ToastStale
}
