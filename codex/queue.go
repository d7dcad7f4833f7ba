package codex

import (
	"sync"

	"github.com/untether/untether/engine"
)

// queue decouples the stdout reader from the consumer: push never blocks,
// so a slow consumer cannot stall the reader (which must keep reading
// responses) nor make it drop or reorder events.
type queue struct {
	mu     sync.Mutex
	items  []engine.Event
	closed bool
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

func (q *queue) push(evs ...engine.Event) {
	q.mu.Lock()
	if !q.closed {
		q.items = append(q.items, evs...)
	}
	q.mu.Unlock()
	q.wake()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.wake()
}

func (q *queue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// pump delivers the events in order and closes out after the last.
func (q *queue) pump(out chan<- engine.Event) {
	for range q.signal {
		q.mu.Lock()
		items, closed := q.items, q.closed
		q.items = nil
		q.mu.Unlock()
		for _, ev := range items {
			out <- ev
		}
		if closed {
			q.mu.Lock()
			rest := q.items
			q.items = nil
			q.mu.Unlock()
			for _, ev := range rest {
				out <- ev
			}
			close(out)
			return
		}
	}
}
