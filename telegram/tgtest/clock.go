package tgtest

import (
	"sync"
	"time"
)

// ManualClock is a clock that moves only when told; pass its Now to WithClock.
type ManualClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewManualClock starts at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{t: start} }

// Now is the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
