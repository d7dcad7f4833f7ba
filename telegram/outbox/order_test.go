package outbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestHighJumpsAheadOfQueuedLow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		first := g.hold(o, r, 1)
		var chans []<-chan error
		for i := range 5 {
			chans = append(chans, o.Enqueue(r.job(1, Low, fmt.Sprintf("low%d", i))))
		}
		chans = append(chans, o.Enqueue(r.job(1, High, "high")))
		if got := o.Stats(); got.QueuedAt(Low) != 5 || got.QueuedAt(High) != 1 {
			t.Fatalf("queued = %+v, want 5 low and 1 high", got.Queued)
		}
		close(g.release)
		waitAll(t, append(chans, first)...)
		want := []string{"busy", "high", "low0", "low1", "low2", "low3", "low4"}
		if got := r.labels(1); !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	})
}

func TestFIFOWithinPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 1)}
		for i := range 4 {
			chans = append(chans,
				o.Enqueue(r.job(1, Normal, fmt.Sprintf("n%d", i))),
				o.Enqueue(r.job(1, High, fmt.Sprintf("h%d", i))))
		}
		close(g.release)
		waitAll(t, chans...)
		want := []string{"busy", "h0", "h1", "h2", "h3", "n0", "n1", "n2", "n3"}
		if got := r.labels(1); !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	})
}

func TestHigherPriorityChatGoesFirstWhenWorkersAreScarce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{MaxInFlight: 1})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 9)}
		chans = append(chans, o.Enqueue(r.job(1, Low, "a-low")), o.Enqueue(r.job(2, High, "b-high")))
		close(g.release)
		waitAll(t, chans...)
		got := r.snapshot()
		if len(got) != 3 || got[1].label != "b-high" || got[2].label != "a-low" {
			t.Fatalf("calls = %+v, want busy, b-high, a-low", got)
		}
	})
}

func TestReplaceKeepsOnlyLatestVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1})
		if err := o.Send(t.Context(), r.job(1, Normal, "reply")); err != nil {
			t.Fatal(err)
		}
		// The chat is now paced for a second: every Replace lands on a queued job.
		results := make(chan error, 10)
		for i := range 10 {
			j := r.job(1, Low, fmt.Sprintf("edit v%d", i))
			j.Key = "edit:1:42"
			j.OnDone = func(err error) { results <- err }
			o.Replace(j)
		}
		var superseded, ok int
		for range 10 {
			switch err := <-results; {
			case errors.Is(err, ErrSuperseded):
				superseded++
			case err == nil:
				ok++
			default:
				t.Fatalf("unexpected result %v", err)
			}
		}
		if superseded != 9 || ok != 1 {
			t.Fatalf("superseded=%d ok=%d, want 9 and 1", superseded, ok)
		}
		want := []string{"reply", "edit v9"}
		if got := r.labels(1); !slices.Equal(got, want) {
			t.Fatalf("calls = %v, want %v", got, want)
		}
		if s := o.Stats(); s.Superseded != 9 || s.Sent != 2 {
			t.Fatalf("stats = %+v, want 9 superseded, 2 sent", s)
		}
	})
}

func TestReplaceKeepsQueuePosition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 1)}
		k1 := r.keyed(1, Low, "k v1", "k")
		chans = append(chans, o.Enqueue(k1), o.Enqueue(r.job(1, Low, "x")))
		k2 := r.keyed(1, Low, "k v2", "k")
		chans = append(chans, o.Enqueue(k2))
		close(g.release)
		errs := waitAll(t, chans...)
		if !errors.Is(errs[1], ErrSuperseded) || errs[3] != nil {
			t.Fatalf("results = %v, want v1 superseded and v2 delivered", errs)
		}
		want := []string{"busy", "k v2", "x"}
		if got := r.labels(1); !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	})
}

func TestReplaceWithHigherPriorityMovesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 1)}
		k1 := r.keyed(1, Low, "progress", "k")
		chans = append(chans, o.Enqueue(k1), o.Enqueue(r.job(1, Normal, "notice")))
		k2 := r.keyed(1, High, "final edit", "k")
		chans = append(chans, o.Enqueue(k2))
		close(g.release)
		waitAll(t, chans...)
		want := []string{"busy", "final edit", "notice"}
		if got := r.labels(1); !slices.Equal(got, want) {
			t.Fatalf("order = %v, want %v", got, want)
		}
	})
}

func TestReplaceWhileRunningQueuesBehindNeverConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		v1 := g.job(r, 1, "v1")
		v1.Key = "k"
		c1 := o.Enqueue(v1)
		<-g.started
		v2 := r.keyed(1, Low, "v2", "k")
		c2 := o.Enqueue(v2)
		synctest.Wait()
		if got := r.labels(1); !slices.Equal(got, []string{"v1"}) {
			t.Fatalf("while v1 runs: calls = %v, want only v1", got)
		}
		close(g.release)
		if errs := waitAll(t, c1, c2); errs[0] != nil || errs[1] != nil {
			t.Fatalf("results = %v", errs)
		}
		if got := r.labels(1); !slices.Equal(got, []string{"v1", "v2"}) {
			t.Fatalf("calls = %v, want v1 then v2", got)
		}
	})
}

func TestFailedOldVersionIsNotRetriedWhenNewerQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		release := make(chan struct{})
		started := make(chan struct{})
		v1 := Job{ChatID: 1, Priority: Low, Key: "k", Do: func(ctx context.Context) error {
			r.add(1, "v1")
			close(started)
			<-release
			return errors.New("error response from telegram for method editMessageText, 502 Bad Gateway")
		}}
		c1 := o.Enqueue(v1)
		<-started
		v2 := r.keyed(1, Low, "v2", "k")
		c2 := o.Enqueue(v2)
		close(release)
		errs := waitAll(t, c1, c2)
		if !errors.Is(errs[0], ErrSuperseded) || errs[1] != nil {
			t.Fatalf("results = %v, want v1 superseded, v2 delivered", errs)
		}
		if got := r.labels(1); !slices.Equal(got, []string{"v1", "v2"}) {
			t.Fatalf("calls = %v, want v1 once then v2 once", got)
		}
	})
}

func TestDropRemovesQueuedKeyedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{})
		g := newGate()
		chans := []<-chan error{g.hold(o, r, 1)}
		k := r.keyed(1, Low, "edit", "edit:1:7")
		dropped := o.Enqueue(k)
		if !o.Drop("edit:1:7") {
			t.Fatal("Drop of a queued key returned false")
		}
		if o.Drop("edit:1:7") || o.Drop("nope") {
			t.Fatal("Drop of an absent key returned true")
		}
		if err := <-dropped; !errors.Is(err, ErrDropped) {
			t.Fatalf("dropped job result = %v, want ErrDropped", err)
		}
		close(g.release)
		waitAll(t, chans...)
		time.Sleep(5 * time.Second)
		if got := r.labels(1); !slices.Equal(got, []string{"busy"}) {
			t.Fatalf("calls = %v, the dropped edit must not run", got)
		}
		if s := o.Stats(); s.Dropped != 1 {
			t.Fatalf("stats.Dropped = %d, want 1", s.Dropped)
		}
	})
}

func TestSendContextEndRemovesQueuedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRecorder()
		o := newTestOutbox(t, Options{ChatBurst: 1})
		if err := o.Send(t.Context(), r.job(1, Normal, "first")); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		err := o.Send(ctx, r.job(1, Normal, "late"))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Send = %v, want deadline exceeded", err)
		}
		time.Sleep(3 * time.Second)
		if got := r.labels(1); !slices.Equal(got, []string{"first"}) {
			t.Fatalf("calls = %v, the abandoned job must not run", got)
		}
	})
}

func TestInvalidJobRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		o := newTestOutbox(t, Options{})
		if err := o.Send(t.Context(), Job{ChatID: 1}); !errors.Is(err, ErrInvalidJob) {
			t.Fatalf("nil Do: %v, want ErrInvalidJob", err)
		}
		bad := Job{ChatID: 1, Priority: 7, Do: func(context.Context) error { return nil }}
		if err := <-o.Enqueue(bad); !errors.Is(err, ErrInvalidJob) {
			t.Fatalf("bad priority: %v, want ErrInvalidJob", err)
		}
	})
}
