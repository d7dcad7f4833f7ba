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

// NumCPU is the cores this process may run on (its CPU affinity, as Go
// counts them).
func (Local) NumCPU(context.Context) (int, error) { return runtime.NumCPU(), nil }
