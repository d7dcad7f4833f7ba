//go:build !linux

package safefile

import (
	"errors"
	"os"
)

// RealPath is not known on this system: callers then rely on the check of
// the path made before the open (see docs/security.md).
func RealPath(f *os.File) (string, error) { return "", errors.ErrUnsupported }
