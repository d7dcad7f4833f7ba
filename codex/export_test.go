package codex

import "github.com/untether/untether/engine"

// KillForTest kills the session's process group as a crash would.
func KillForTest(c engine.Conn) { c.(*Conn).kill() }

// PidForTest is the app-server's process id (the memory benchmark).
func PidForTest(c engine.Conn) int { return c.(*Conn).cmd.Process.Pid }
