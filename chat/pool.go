package chat

import (
	"context"
	"sync"
	"time"
)

// Holder is what holds a slot of a Pool: a conversation with a live
// process.
type Holder interface {
	// Evict asks the holder for its process: a hint it acts on only when
	// the pool is still short then (Pool.Short), and only when idle.
	Evict()
}

// Pool bounds the number of live agent processes (a Claude Code one is
// ~190 MB) on one machine. When a chat needs one more, the least recently used idle holder
// is asked to close its process; holders busy with a turn (or waiting for
// an approval) are never evicted, so a new turn then waits in line. A
// holder with a turn coming (queued) counts as busy for QueuedGrace: it
// keeps its warm process rather than give it up for one turn and start
// another for its next; past that, a waiting turn may take its slot, so a
// chatty chat cannot hold one for ever.
type Pool struct {
	max int

	mu      sync.Mutex
	holders map[Holder]time.Time // holder → last use
	freed   chan struct{}        // closed and replaced whenever a slot frees
	waiting int                  // acquires waiting for a slot
}

// QueuedGrace is how long a holder with a turn coming keeps its slot from
// a turn that waits for one.
const QueuedGrace = time.Minute

func NewPool(max int) *Pool {
	return &Pool{max: max, holders: map[Holder]time.Time{}, freed: make(chan struct{})}
}

// Acquire gets a slot for a, evicting an idle holder if needed. onWait is
// called once if a has to wait. It returns ctx's error if ctx ends first
// (the turn was cancelled while it waited).
//
// busy says whether a holder must keep its slot; strict is false once the
// turn has waited QueuedGrace, when only a running turn keeps one.
func (p *Pool) Acquire(ctx context.Context, a Holder, busy func(h Holder, strict bool) bool, onWait func()) error {
	waited, counted := false, false
	start := time.Now()
	defer func() {
		if counted {
			p.mu.Lock()
			p.waiting--
			p.mu.Unlock()
		}
	}()
	for {
		p.mu.Lock()
		if _, ok := p.holders[a]; ok || len(p.holders) < p.max {
			p.holders[a] = time.Now()
			p.mu.Unlock()
			return nil
		}
		if !counted {
			counted = true
			p.waiting++
		}
		var victim Holder
		var oldest time.Time
		strict := time.Since(start) < QueuedGrace
		for h, used := range p.holders {
			if busy(h, strict) {
				continue
			}
			if victim == nil || used.Before(oldest) {
				victim, oldest = h, used
			}
		}
		freed := p.freed
		p.mu.Unlock()
		if victim != nil {
			victim.Evict()
		} else if !waited {
			waited = true
			onWait()
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
			// Re-check: an evicted holder may have been mid-transition.
		}
	}
}

// Short says whether a turn still waits for a slot that only an eviction
// can free. An evict signal is only a hint: it is acted on when this holds
// at the moment the holder reads it, never on the word of a turn that has
// since got a slot elsewhere or was cancelled.
func (p *Pool) Short() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting > 0 && len(p.holders) >= p.max
}

// Live is how many holders have a slot.
func (p *Pool) Live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.holders)
}

// Touch marks a holder used now: the last to be evicted.
func (p *Pool) Touch(a Holder) {
	p.mu.Lock()
	if _, ok := p.holders[a]; ok {
		p.holders[a] = time.Now()
	}
	p.mu.Unlock()
}

// Release frees a holder's slot, if it has one.
func (p *Pool) Release(a Holder) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.holders[a]; !ok {
		return
	}
	delete(p.holders, a)
	close(p.freed)
	p.freed = make(chan struct{})
}

// Wake makes waiting acquires look again: a holder's turn ended, so it has
// become evictable (without this they would notice only on their re-check).
func (p *Pool) Wake() {
	p.mu.Lock()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
}
