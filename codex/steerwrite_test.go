package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
)

// slowWriter is Codex's stdin behind a link that is down: a write waits
// until release is closed (the link is back), then goes through.
type slowWriter struct {
	release chan struct{}
	mu      sync.Mutex
	out     bytes.Buffer
}

func (w *slowWriter) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *slowWriter) lines() []message {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []message
	for l := range strings.SplitSeq(strings.TrimSpace(w.out.String()), "\n") {
		var m message
		if json.Unmarshal([]byte(l), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func slowRig() (*Conn, *slowWriter) {
	c, _, _ := handleRig()
	w := &slowWriter{release: make(chan struct{})}
	c.rpc = newRPC(w)
	c.o.RequestTimeout = time.Second
	c.thread = "th"
	return c, w
}

func promptStates(c *Conn) []string {
	var got []string
	for _, ev := range c.queue.Queued() {
		switch e := ev.(type) {
		case engine.PromptState:
			got = append(got, e.ID+" "+map[engine.PromptStage]string{engine.PromptStarted: "started", engine.PromptCancelled: "dropped"}[e.Stage])
		case engine.TurnCompleted:
			got = append(got, "completed "+string(e.Outcome))
		}
	}
	return got
}

// A turn/steer written only after the request timeout (the held Codex's
// link was down) may well reach Codex, which takes the message into the
// running turn: Steer does not report it unsent (the bot would run it a
// second time), and the message's userMessage still says it was taken.
func TestSteerWrittenAfterTheTimeoutCountsAsSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over")) // ends the wait for a late answer
		c.turn, c.running = "tu", true
		done := make(chan error, 1)
		go func() { done <- c.Steer(t.Context(), "s1", "also this") }()
		time.Sleep(3 * c.o.RequestTimeout) // the link stays down past the timeout
		close(w.release)
		if err := <-done; err != nil {
			t.Fatalf("Steer = %v, want nil: the line may have reached Codex", err)
		}
		synctest.Wait()
		if ls := w.lines(); len(ls) != 1 || ls[0].Method != "turn/steer" {
			t.Fatalf("written %v, want the turn/steer", ls)
		}
		c.handle([]byte(`{"method":"item/started","params":{"turnId":"tu","item":{"type":"userMessage","id":"u1","clientId":"s1"}}}`))
		if got, want := promptStates(c), []string{"s1 started"}; !slices.Equal(got, want) {
			t.Errorf("events %q, want %q", got, want)
		}
	})
}

// Codex's late answer settles an unanswered turn/steer: a refusal drops
// the message at once (the bot runs it itself), an acceptance changes
// nothing.
func TestSteerLateRefusalDropsTheMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over")) // ends the wait for a late answer
		close(w.release)
		c.turn, c.running = "tu", true
		done := make(chan error, 1)
		go func() { done <- c.Steer(t.Context(), "s1", "also this") }()
		if err := <-done; err != nil { // no answer within the timeout
			t.Fatalf("Steer = %v, want nil", err)
		}
		c.handle([]byte(`{"id":1,"error":{"code":-32600,"message":"expected turn tu, found none"}}`))
		synctest.Wait()
		if got, want := promptStates(c), []string{"s1 dropped"}; !slices.Equal(got, want) {
			t.Errorf("events %q, want %q", got, want)
		}
		c.handle([]byte(`{"method":"turn/completed","params":{"threadId":"th","turn":{"id":"tu","status":"completed"}}}`))
		if got, want := promptStates(c), []string{"s1 dropped", "completed done"}; !slices.Equal(got, want) {
			t.Errorf("events %q, want %q (dropped once)", got, want)
		}
	})
}

// A Steer whose context ended before anything was written reports it
// unsent: Codex cannot have it.
func TestSteerNotWrittenIsAnError(t *testing.T) {
	c, _, _ := handleRig()
	c.thread, c.turn, c.running = "th", "tu", true
	gone, stop := context.WithCancel(t.Context())
	stop()
	if err := c.Steer(gone, "s1", "x"); err == nil {
		t.Fatal("Steer with its context done = nil, want an error")
	}
	if len(c.steered) != 0 {
		t.Errorf("steered = %v, want none followed", c.steered)
	}
}

// A turn/start written only after the request timeout starts the turn in
// Codex: Send does not report it failed (the bot would run the prompt
// again while Codex runs it), and the turn's events follow as usual.
func TestTurnStartWrittenAfterTheTimeoutCountsAsStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over")) // ends the wait for a late answer
		done := make(chan error, 1)
		go func() { done <- c.Send(t.Context(), "do it") }()
		time.Sleep(3 * c.o.RequestTimeout)
		close(w.release)
		if err := <-done; err != nil {
			t.Fatalf("Send = %v, want nil: the turn may run in Codex", err)
		}
		synctest.Wait()
		c.handle([]byte(`{"id":1,"result":{"turn":{"id":"tu","status":"inProgress"}}}`))
		c.handle([]byte(`{"method":"turn/started","params":{"threadId":"th","turn":{"id":"tu"}}}`))
		synctest.Wait()
		c.mu.Lock()
		turn, running := c.turn, c.running
		c.mu.Unlock()
		if turn != "tu" || !running {
			t.Errorf("turn %q running %v, want tu running", turn, running)
		}
	})
}

// Codex refusing a turn/start it answered late ends the turn as failed:
// the bot does not wait for a turn that never runs.
func TestTurnStartLateRefusalFailsTheTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, w := slowRig()
		defer c.rpc.ended(errors.New("test over")) // ends the wait for a late answer
		close(w.release)
		if err := c.Send(t.Context(), "do it"); err != nil {
			t.Fatalf("Send = %v, want nil", err)
		}
		c.handle([]byte(`{"id":1,"error":{"code":-32600,"message":"no such thread"}}`))
		synctest.Wait()
		if got, want := promptStates(c), []string{"completed failed"}; !slices.Equal(got, want) {
			t.Errorf("events %q, want %q", got, want)
		}
		c.mu.Lock()
		running := c.running
		c.mu.Unlock()
		if running {
			t.Error("still running after the refusal")
		}
	})
}
