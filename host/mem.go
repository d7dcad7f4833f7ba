package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/untether/untether/safefile"
)

// Memory is a host that can tell how much memory it has: the default cap
// of live Claude processes there follows from it. Optional: a host
// without it gets the fixed default.
type Memory interface {
	// MemTotal is the machine's physical memory in bytes.
	MemTotal(ctx context.Context) (int64, error)
}

var _ Memory = Local{}

// MemTotal reads /proc/meminfo on Linux and hw.memsize on macOS.
func (Local) MemTotal(ctx context.Context) (int64, error) {
	if runtime.GOOS == "darwin" {
		out, err := exec.CommandContext(ctx, "/usr/sbin/sysctl", "-n", "hw.memsize").Output()
		if err != nil {
			return 0, fmt.Errorf("sysctl hw.memsize: %w", err)
		}
		return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	}
	data, err := safefile.ReadFile(ctx, "/proc/meminfo", 1<<20)
	if err != nil {
		return 0, fmt.Errorf("reading /proc/meminfo: %w", err)
	}
	return ParseMemTotal(data)
}

// ParseMemTotal is the MemTotal line of /proc/meminfo, in bytes.
func ParseMemTotal(meminfo []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("MemTotal %q: %w", f[1], err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no MemTotal line in /proc/meminfo")
}
