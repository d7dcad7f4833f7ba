package chat

import (
	"log/slog"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
)

// blockingObserver holds its first snapshot until released, and says
// which conversation it was of.
type blockingObserver struct {
	first   chan string
	release chan struct{}
	n       int
}

func (o *blockingObserver) Observe(ev Event) {
	o.n++
	if o.n == 1 {
		o.first <- ev.Key
		<-o.release
	}
}

// A watch that starts while a message arrives for a conversation whose turn
// runs: neither waits for the other. Before, enqueue told the observers
// while holding its session's lock, and Watch read each session's status
// while holding the watchers' lock: the two waited for each other for ever.
func TestWatchAndEnqueueDoNotDeadlock(t *testing.T) {
	{
		c := &Core{log: slog.New(slog.DiscardHandler), surface: quietSurface{}, sessions: map[string]*session{}}
		for _, key := range []string{"1", "2"} {
			s := c.sessionFor(key, Place{})
			s.running = true // the test stands in for the session's loop
			s.turn = &turn{} // a turn that has not answered
		}
		early := &blockingObserver{first: make(chan string, 1), release: make(chan struct{})}
		watched := make(chan struct{})
		go func() {
			stop := c.Watch("", early)
			stop()
			close(watched)
		}()
		first := <-early.first
		other := "1"
		if first == "1" {
			other = "2"
		}
		queued := make(chan struct{})
		go func() {
			c.sessionFor(other, Place{}).enqueue(prefs.QueuedPrompt{Key: other, Prompt: prefs.Prompt{MessageID: 5}})
			close(queued)
		}()
		// Give enqueue the moment it needs to wait for the watchers' lock
		// (with the old code: while holding its session's); a mutex wait is
		// not one synctest can see, so this test runs on the real clock.
		time.Sleep(50 * time.Millisecond)
		close(early.release)
		for _, done := range []chan struct{}{watched, queued} {
			select {
			case <-done:
			case <-time.After(time.Minute): // a hang's bound, not a speed
				t.Fatal("Watch and enqueue wait for each other")
			}
		}
	}
}
