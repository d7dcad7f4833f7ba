package outbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestCloseStopsQueuedAndRunningJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := New(Options{Logger: quietLogger()})
		g := newGate()
		running := g.hold(o, r, 1)
		var queued []<-chan error
		for i := range 3 {
			queued = append(queued, o.Enqueue(r.job(1, High, fmt.Sprint(i))))
		}
		o.Close()
		if err := <-running; !errors.Is(err, ErrClosed) || !errors.Is(err, context.Canceled) {
			t.Fatalf("running job = %v, want ErrClosed wrapping the cancellation", err)
		}
		for i, err := range waitAll(t, queued...) {
			if !errors.Is(err, ErrClosed) {
				t.Fatalf("queued job %d = %v, want ErrClosed", i, err)
			}
		}
		if err := o.Send(t.Context(), r.job(1, High, "late")); !errors.Is(err, ErrClosed) {
			t.Fatalf("Send after Close = %v, want ErrClosed", err)
		}
		o.Close() // idempotent
		if got := r.labels(1); !slices.Equal(got, []string{"busy"}) {
			t.Fatalf("calls = %v, queued jobs must not run after Close", got)
		}
		// synctest.Test fails if any outbox goroutine is still alive here.
	})
}

func TestDrainDeliversEverythingQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := New(Options{Logger: quietLogger(), ChatBurst: 1})
		var chans []<-chan error
		for i := range 5 {
			chans = append(chans, o.Enqueue(r.job(1, Normal, fmt.Sprint(i))))
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		drained := make(chan error, 1)
		go func() { drained <- o.Drain(ctx) }()
		synctest.Wait()
		if err := <-o.Enqueue(r.job(1, Normal, "late")); !errors.Is(err, ErrClosed) {
			t.Fatalf("Enqueue while draining = %v, want ErrClosed", err)
		}
		if err := <-drained; err != nil {
			t.Fatalf("Drain = %v", err)
		}
		for i, err := range waitAll(t, chans...) {
			if err != nil {
				t.Fatalf("job %d = %v, want delivered", i, err)
			}
		}
		if n := len(r.labels(1)); n != 5 {
			t.Fatalf("%d calls, want 5", n)
		}
	})
}

func TestDrainGivesUpAtDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := New(Options{Logger: quietLogger()})
		down := errors.New("error response from telegram for method sendMessage, 503 Service Unavailable")
		stuck := o.Enqueue(Job{ChatID: 1, Priority: High, Do: func(context.Context) error { return down }})
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		start := time.Now()
		if err := o.Drain(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Drain = %v, want deadline exceeded", err)
		}
		if waited := time.Since(start); waited != 3*time.Second {
			t.Fatalf("Drain returned after %v, want at its 3s deadline", waited)
		}
		if err := <-stuck; !errors.Is(err, ErrClosed) {
			t.Fatalf("undelivered job = %v, want ErrClosed", err)
		}
	})
}

func TestIdleChatsAreForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		var chans []<-chan error
		for c := range 50 {
			chans = append(chans, o.Enqueue(r.job(int64(c+1), Normal, "a")), o.Enqueue(r.job(-int64(c+1), Normal, "b")))
		}
		waitAll(t, chans...)
		if s := o.Stats(); s.Chats != 100 || s.InFlight != 0 {
			t.Fatalf("after sending: %+v, want 100 chats tracked, nothing in flight", s)
		}
		time.Sleep(3 * time.Minute)
		if s := o.Stats(); s.Chats != 0 {
			t.Fatalf("after 3 idle minutes %d chats still tracked", s.Chats)
		}
		// Pacing state was forgotten only once it no longer mattered: a
		// group that sends again starts with a fresh budget.
		if err := o.Send(t.Context(), r.job(-1, Normal, "again")); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCallTimeoutIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newTestOutbox(t, Options{CallTimeout: 2 * time.Second})
		calls := 0
		err := o.Send(t.Context(), Job{ChatID: 1, Priority: High, Do: func(ctx context.Context) error {
			calls++
			if calls == 1 {
				<-ctx.Done() // a hung connection
				return ctx.Err()
			}
			return nil
		}})
		if err != nil || calls != 2 {
			t.Fatalf("Send = %v after %d calls, want delivered on the second", err, calls)
		}
	})
}

// TestNoGoroutineLeak runs outside a bubble with real time, all limits off,
// and checks that no goroutine running outbox code outlives Close. It looks
// at stacks rather than runtime.NumGoroutine: a goroutine of the testing
// framework or of an earlier test (a context.AfterFunc firing late) may come
// and go meanwhile, and counting made this test fail on a busy CI machine.
func TestNoGoroutineLeak(t *testing.T) {
	o := New(Options{Logger: quietLogger(), ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1})
	var chans []<-chan error
	for i := range 200 {
		chans = append(chans, o.Enqueue(Job{ChatID: int64(i % 17), Do: func(context.Context) error { return nil }}))
	}
	for _, ch := range chans {
		if err := <-ch; err != nil {
			t.Fatal(err)
		}
	}
	if n := len(outboxGoroutines()); n == 0 {
		t.Fatal("no outbox goroutine seen before Close: the check below would prove nothing")
	}
	o.Close()
	// Close waits for its goroutines, so none may be left, not even briefly.
	if left := outboxGoroutines(); len(left) > 0 {
		t.Fatalf("%d outbox goroutines after Close:\n%s", len(left), strings.Join(left, "\n\n"))
	}
}

// outboxGoroutines returns the stacks of goroutines executing a method of
// Outbox (other than this test's own).
func outboxGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "outbox.(*Outbox).") && !strings.Contains(g, "outboxGoroutines") {
			out = append(out, g)
		}
	}
	return out
}

func BenchmarkSend(b *testing.B) {
	o := New(Options{Logger: quietLogger(), ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1})
	defer o.Close()
	ctx := context.Background()
	j := Job{ChatID: 1, Do: func(context.Context) error { return nil }}
	for b.Loop() {
		if err := o.Send(ctx, j); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnqueueManyChats(b *testing.B) {
	o := New(Options{Logger: quietLogger(), ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: -1, MaxInFlight: 16})
	defer o.Close()
	noop := func(context.Context) error { return nil }
	chans := make([]<-chan error, 0, 1024)
	i := 0
	for b.Loop() {
		chans = append(chans, o.Enqueue(Job{ChatID: int64(i % 1000), Do: noop}))
		i++
		if len(chans) == cap(chans) {
			for _, ch := range chans {
				<-ch
			}
			chans = chans[:0]
		}
	}
	for _, ch := range chans {
		<-ch
	}
}

func TestCloseReleasesDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := New(Options{Logger: quietLogger()})
		down := errors.New("error response from telegram for method sendMessage, 500 Internal Server Error")
		stuck := o.Enqueue(Job{ChatID: 1, Do: func(context.Context) error { return down }})
		drained := make(chan error, 1)
		go func() { drained <- o.Drain(t.Context()) }()
		time.Sleep(10 * time.Second)
		o.Close()
		if err := <-drained; !errors.Is(err, ErrClosed) {
			t.Fatalf("Drain = %v, want ErrClosed", err)
		}
		if err := <-stuck; !errors.Is(err, ErrClosed) {
			t.Fatalf("job = %v, want ErrClosed", err)
		}
	})
}

// While draining nothing new comes, so low jobs (summaries of progress
// messages, prompt outcomes) need leave no room for it: they go as soon
// as the windows themselves allow, and a stop does not lose them.
func TestDrainSendsLowWithoutReserve(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := New(Options{Logger: quietLogger(), ChatInterval: time.Second, ChatBurst: 3, ChatReserve: 1, GlobalPerSecond: -1})
		waitAll(t, o.Enqueue(r.job(1, High, "a1")), o.Enqueue(r.job(1, High, "a2")))
		low := o.Enqueue(r.job(1, Low, "summary"))
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		if err := o.Drain(ctx); err != nil {
			t.Fatalf("Drain = %v: the low job waited for a reserve nobody needs", err)
		}
		if err := <-low; err != nil {
			t.Fatalf("low job = %v", err)
		}
	})
}
