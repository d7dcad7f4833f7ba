package codex

import "github.com/untether/untether/engine"

// connOf is the Conn behind what the engine handed out.
func connOf(c engine.Conn) *Conn {
	if h, ok := c.(HeldConn); ok {
		return h.Conn
	}
	return c.(*Conn)
}

// KillForTest kills the session's process group as a crash would.
func KillForTest(c engine.Conn) { connOf(c).kill() }

// PidForTest is the app-server's process id (the memory benchmark).
func PidForTest(c engine.Conn) int {
	if cc := connOf(c); cc.held != nil {
		return cc.held.handle.Pid
	}
	return connOf(c).proc.Pid()
}
