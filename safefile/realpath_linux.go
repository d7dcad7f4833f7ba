package safefile

import (
	"os"
	"strconv"
)

// RealPath returns where the open file f is, as the kernel knows it: the
// path to check when the name that was opened may have changed between a
// check and the open.
func RealPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}
