package runner

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// slowStdin is the CLI's stdin behind a holder whose link is down: a
// write waits until release is closed (the link is back), then goes
// through.
type slowStdin struct {
	release chan struct{}
	open    func() // closes release, once
	mu      sync.Mutex
	out     bytes.Buffer
}

func (w *slowStdin) Write(p []byte) (int, error) {
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func (w *slowStdin) Close() error { return nil }

func (w *slowStdin) written() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.String()
}

// slowSession is a Session with no process whose stdin is slow; stop
// lets the writer go and ends it.
func slowSession() (s *Session, w *slowStdin, stop func()) {
	s = newSession(Options{Mode: Interactive, Logger: slog.New(slog.DiscardHandler)}.withDefaults())
	w = &slowStdin{release: make(chan struct{})}
	w.open = sync.OnceFunc(func() { close(w.release) })
	s.stdin = w
	go s.writeLoop()
	return s, w, func() {
		w.open()
		close(s.closing)
		<-s.writerEnd
	}
}

// A line handed to the writer is written, however late: writeSeq whose
// context ends before that says so (errWritePending), not that the line
// was not sent; only a context that ended before the line was handed over
// says that.
func TestWriteSeqContextEndsAfterTheLineWasQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, w, stop := slowSession()
		defer stop()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := s.writeSeq(ctx, []byte(`{"type":"user"}`))
		if !errors.Is(err, errWritePending) {
			t.Fatalf("writeSeq = %v, want errWritePending", err)
		}
		w.open()
		synctest.Wait()
		if got := w.written(); got != "{\"type\":\"user\"}\n" {
			t.Errorf("written %q, want the line", got)
		}
		_, err = s.writeSeq(ctx, []byte(`{"type":"late"}`))
		if err == nil || errors.Is(err, errWritePending) {
			t.Errorf("writeSeq with its context done = %v, want not sent", err)
		}
		synctest.Wait()
		if got := w.written(); got != "{\"type\":\"user\"}\n" {
			t.Errorf("written %q, want only the first line", got)
		}
	})
}

// Steer whose line is still waiting for the writer when its context ends
// (autoSteer gives 10 s, a held session's relink takes longer) does not
// report it unsent: the CLI gets it and runs it, and the bot must not run
// it again. The CLI's lifecycle lines settle it as usual.
func TestSteerPendingWriteCountsAsSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, w, stop := slowSession()
		defer stop()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := s.Steer(ctx, "s1", "also this"); err != nil {
			t.Fatalf("Steer = %v, want nil: the line goes to the CLI", err)
		}
		s.mu.Lock()
		followed := s.steered["s1"]
		s.mu.Unlock()
		if !followed {
			t.Error("the steered line is not followed")
		}
		// A prompt likewise: the CLI runs it once written.
		ctx, cancel = context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := s.SendAs(ctx, "p1", "next"); err != nil {
			t.Fatalf("SendAs = %v, want nil", err)
		}
		if !s.inTurn() {
			t.Error("the pending prompt is not counted as a turn")
		}
		w.open()
	})
}

// A prompt SendAs took as sent while its line still waits for the writer
// has no journal record yet: SentAt says none, not the previous prompt's
// record, which a restart would replay as this turn (its answer shown as
// the new prompt's, the new prompt never run).
func TestSentAtIsNoneWhileThePromptWaitsForTheWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _, stop := slowSession()
		defer stop()
		s.sentAt.Store(7) // the previous prompt's record
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := s.SendAs(ctx, "p2", "second"); err != nil {
			t.Fatalf("SendAs = %v, want nil (taken as sent)", err)
		}
		if got := s.SentAt(); got != 0 {
			t.Errorf("SentAt = %d while the prompt waits for the writer, want 0 (not the previous prompt's 7)", got)
		}
	})
}
