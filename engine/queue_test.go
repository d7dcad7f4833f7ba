package engine

import "testing"

// Events come out in order, and the channel closes after the last once
// the queue is closed.
func TestQueueDeliversInOrderThenCloses(t *testing.T) {
	q := NewQueue()
	out := make(chan Event)
	go q.Pump(out, make(chan struct{}))
	q.Push(Text{Text: "a"}, Text{Text: "b"})
	q.Push(Text{Text: "c"})
	q.Close()
	var got string
	for ev := range out {
		got += ev.(Text).Text
	}
	if got != "abc" {
		t.Errorf("delivered %q, want abc", got)
	}
}

// A consumer that stopped reading does not hold Pump for ever: closing
// abandon ends it (and closes out) while events still wait.
func TestQueueAbandonedEndsPump(t *testing.T) {
	q := NewQueue()
	out := make(chan Event)
	abandon := make(chan struct{})
	ended := make(chan struct{})
	go func() { q.Pump(out, abandon); close(ended) }()
	q.Push(Text{Text: "never read"}, Text{Text: "nor this"})
	close(abandon)
	<-ended // without abandon this would never return
	if _, open := <-out; open {
		t.Error("out still open after abandon")
	}
}
