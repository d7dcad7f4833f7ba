package view

// Toasts for button presses the bot does not act on.
const (
	// ToastNotAllowed answers a press from a user who is not allowed.
	ToastNotAllowed = "You are not allowed to answer this"
	// ToastTooManyPresses answers a press beyond the per-user limit.
	ToastTooManyPresses = "Too many presses: wait a few seconds"
)
