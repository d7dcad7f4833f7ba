//go:build !linux

package procguard

import "errors"

// Protect does nothing outside Linux and says so: there is no
// PR_SET_DUMPABLE, and other systems guard a process's environment and
// memory in their own ways.
func Protect() error { return errors.ErrUnsupported }
