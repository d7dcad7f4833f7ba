package host

import (
	"context"
	"runtime"
)

// CPUs is a host that can tell how many cores it may use: agent starts
// there are CPU-bound, so the bound on starts in flight follows from
// them (chat.Starts). Optional: a host without it gets this machine's
// figure.
type CPUs interface {
	NumCPU(ctx context.Context) (int, error)
}

var _ CPUs = Local{}

// NumCPU is the cores this process may use: its CPU affinity and, in a
// container, its cgroup's CPU quota (Go's default GOMAXPROCS counts both;
// runtime.NumCPU ignores the quota, so a 2-CPU container on a 64-core
// machine would be told 64).
func (Local) NumCPU(context.Context) (int, error) { return runtime.GOMAXPROCS(0), nil }
