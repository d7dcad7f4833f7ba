package ssh

import "time"

// SetCallTimeout sets the deadline of a call whose context has none, for
// a test; it returns the way back.
func SetCallTimeout(d time.Duration) func() {
	old := callTimeout
	callTimeout = d
	return func() { callTimeout = old }
}
