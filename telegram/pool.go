package telegram

import (
	"context"
	"sync"
	"time"
)

// pool bounds the number of live Claude processes (each ~190 MB) on one
// machine. When a chat needs one more, the least recently used idle holder
// is asked to close its process; holders busy with a turn (or waiting for
// an approval) are never evicted, so a new turn then waits in line. A
// holder with a turn coming (queued) counts as busy for queuedGrace: it
// keeps its warm process rather than give it up for one turn and start
// another for its next; past that, a waiting turn may take its slot, so a
// chatty chat cannot hold one for ever.
type pool struct {
	max int

	mu      sync.Mutex
	holders map[*actor]time.Time // actor → last use
	freed   chan struct{}        // closed and replaced whenever a slot frees
	waiting int                  // acquires waiting for a slot
}

// queuedGrace is how long a holder with a turn coming keeps its slot from
// a turn that waits for one.
const queuedGrace = time.Minute

func newPool(max int) *pool {
	return &pool{max: max, holders: map[*actor]time.Time{}, freed: make(chan struct{})}
}

// acquire gets a slot for a, evicting an idle holder if needed. onWait is
// called once if a has to wait. It returns ctx's error if ctx ends first
// (the turn was cancelled while it waited).
//
// busy says whether a holder must keep its slot; strict is false once the
// turn has waited queuedGrace, when only a running turn keeps one.
func (p *pool) acquire(ctx context.Context, a *actor, busy func(h *actor, strict bool) bool, onWait func()) error {
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
		var victim *actor
		var oldest time.Time
		strict := time.Since(start) < queuedGrace
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
			signal(victim.evict)
		} else if !waited {
			waited = true
			onWait()
		}
		select {
		case <-freed:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
			// Re-check: an evicted actor may have been mid-transition.
		}
	}
}

// short says whether a turn still waits for a slot that only an eviction
// can free. An evict signal is only a hint: it is acted on when this holds
// at the moment the holder reads it, never on the word of a turn that has
// since got a slot elsewhere or was cancelled.
func (p *pool) short() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting > 0 && len(p.holders) >= p.max
}

// live is how many holders have a slot.
func (p *pool) live() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.holders)
}

func (p *pool) touch(a *actor) {
	p.mu.Lock()
	if _, ok := p.holders[a]; ok {
		p.holders[a] = time.Now()
	}
	p.mu.Unlock()
}

func (p *pool) release(a *actor) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.holders[a]; !ok {
		return
	}
	delete(p.holders, a)
	close(p.freed)
	p.freed = make(chan struct{})
}

// wake makes waiting acquires look again: a holder's turn ended, so it has
// become evictable (without this they would notice only on their re-check).
func (p *pool) wake() {
	p.mu.Lock()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
}
