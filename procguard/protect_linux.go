package procguard

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Protect makes this process non-dumpable (prctl PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem, maps, fd and cwd become root's, ptrace and
// process_vm_readv by the same user are refused, and it leaves no core
// dump. Call it first thing, before any secret is read; the kernel's
// check covers the whole process, all threads.
func Protect() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_DUMPABLE 0: %w", err)
	}
	return nil
}
