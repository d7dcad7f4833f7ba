package codex

import "github.com/untether/untether/engine"

// KillForTest kills the session's process group as a crash would.
func KillForTest(c engine.Conn) { c.(*Conn).kill() }
