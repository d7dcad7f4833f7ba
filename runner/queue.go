package runner

import (
	"sync"

	"github.com/untether/untether/engine"
)

// eventQueue decouples the stdout reader from the consumer: push never
// blocks, so a slow consumer can neither stall the reader (which must keep
// reading control responses) nor make it drop or reorder events.
type eventQueue struct {
	mu     sync.Mutex
	items  []engine.Event
	closed bool
	signal chan struct{} // capacity 1: "something changed"
}

func newEventQueue() *eventQueue {
	return &eventQueue{signal: make(chan struct{}, 1)}
}

func (q *eventQueue) push(evs ...engine.Event) {
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

func (q *eventQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.notify()
}

func (q *eventQueue) notify() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// take returns everything queued, and whether the queue is closed and empty.
func (q *eventQueue) take() ([]engine.Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items, q.closed && len(items) == 0
}

// pump delivers queued events to out in order, closing out when the queue is
// closed and drained, or when abandon is closed (nobody is reading anymore).
func (q *eventQueue) pump(out chan<- engine.Event, abandon <-chan struct{}) {
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
