package engine

import (
	"sync"
)

// Queue is an engine's events between the reader of its agent's output
// and the consumer of Conn.Events: Push never blocks, so a slow consumer
// can neither stall the reader (which must keep reading the agent's
// responses) nor make it drop or reorder events. Every engine uses it
// (runner, codex).
type Queue struct {
	mu     sync.Mutex
	items  []Event
	closed bool
	signal chan struct{} // capacity 1: "something changed"
}

// NewQueue is an empty, open queue.
func NewQueue() *Queue {
	return &Queue{signal: make(chan struct{}, 1)}
}

// Push adds events; after Close it drops them.
func (q *Queue) Push(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
	}
	q.mu.Unlock()
	q.notify()
}

// Close says no event follows: Pump closes its channel once drained.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.notify()
}

func (q *Queue) notify() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// take returns everything queued, and whether the queue is closed and empty.
func (q *Queue) take() ([]Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items, q.closed && len(items) == 0
}

// Pump delivers queued events to out in order, closing out when the queue
// is closed and drained, or when abandon is closed (nobody is reading
// anymore: without it a consumer that stopped would hold Pump forever).
func (q *Queue) Pump(out chan<- Event, abandon <-chan struct{}) {
	defer close(out)
	for {
		items, done := q.take()
		if done {
			return
		}
		for _, ev := range items {
			select {
			case out <- ev:
			case <-abandon:
				return
			}
		}
		if len(items) == 0 {
			select {
			case <-q.signal:
			case <-abandon:
				return
			}
		}
	}
}

// Queued is a copy of the events waiting for Pump (for tests of a reader).
func (q *Queue) Queued() []Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Event(nil), q.items...)
}
