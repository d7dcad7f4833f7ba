package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/untether/untether/engine"
)

// nextOn returns the next event of type T on a one-shot connection.
func nextOn[T engine.Event](t *testing.T, c *OneShotConn) T {
	t.Helper()
	timeout := time.After(hangBound)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("events closed while waiting for %T", *new(T))
			}
			if e, ok := ev.(T); ok {
				return e
			}
			if ex, ok := ev.(engine.Exited); ok {
				t.Fatalf("exited while waiting for %T: %+v", *new(T), ex)
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %T", *new(T))
		}
	}
}

// A one-shot connection runs a process per message, resumes the session
// of the previous one, and keeps one event stream across them: a clean
// exit between messages is not the end of the connection.
func TestOneShotConnResumesAcrossMessages(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Resume = "stored-session"
	c := NewOneShotConn(context.Background(), opts)
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if c.SessionID() != "stored-session" {
		t.Fatalf("session id before the first message = %q", c.SessionID())
	}

	if err := c.Send(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	tc := nextOn[engine.TurnCompleted](t, c)
	if tc.Result != "oneshot: first (stdin tty=true)" || tc.SessionID != "stored-session" {
		t.Fatalf("first turn = %q in session %q", tc.Result, tc.SessionID)
	}
	// The process may still be exiting: Send says so rather than start a
	// second one beside it.
	deadline := time.Now().Add(hangBound)
	var err error
	for {
		err = c.Send(context.Background(), "second")
		if !errors.Is(err, ErrBusyOneShot) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("second send: %v", err)
	}
	tc = nextOn[engine.TurnCompleted](t, c)
	if tc.Result != "oneshot: second (stdin tty=true)" || tc.SessionID != "stored-session" {
		t.Fatalf("second turn = %q in session %q", tc.Result, tc.SessionID)
	}
	if err := c.Allow(context.Background(), "r", nil, nil); !errors.Is(err, ErrNoControl) {
		t.Errorf("allow on a one-shot connection: %v", err)
	}

	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if err := c.Send(context.Background(), "third"); !errors.Is(err, engine.ErrClosed) {
		t.Errorf("send after close: %v", err)
	}
	for range c.Events() { // closed by Close: this ends
	}
}
