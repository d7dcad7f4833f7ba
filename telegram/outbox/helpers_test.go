package outbox

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// call is one observed Bot API call.
type call struct {
	at    time.Duration // since the recorder was created (virtual time)
	chat  int64
	label string
}

// recorder stands in for the bot client: jobs built by it log their calls.
type recorder struct {
	start time.Time
	mu    sync.Mutex
	calls []call
}

func newRecorder() *recorder { return &recorder{start: time.Now()} }

func (r *recorder) add(chat int64, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{at: time.Since(r.start), chat: chat, label: label})
}

// job returns a job that records its call and then returns the next error
// from errs (nil once errs is used up).
func (r *recorder) job(chat int64, p Priority, label string, errs ...error) Job {
	var mu sync.Mutex
	return Job{ChatID: chat, Priority: p, Do: func(ctx context.Context) error {
		r.add(chat, label)
		mu.Lock()
		defer mu.Unlock()
		if len(errs) == 0 {
			return nil
		}
		err := errs[0]
		errs = errs[1:]
		return err
	}}
}

func (r *recorder) snapshot() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func (r *recorder) labels(chat int64) []string {
	var out []string
	for _, c := range r.snapshot() {
		if c.chat == chat {
			out = append(out, c.label)
		}
	}
	return out
}

func (r *recorder) times(chat int64) []time.Duration {
	var out []time.Duration
	for _, c := range r.snapshot() {
		if c.chat == chat {
			out = append(out, c.at)
		}
	}
	return out
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// newTestOutbox starts an outbox that is closed when the test ends.
func newTestOutbox(t *testing.T, opts Options) *Outbox {
	t.Helper()
	opts.Logger = quietLogger()
	o := New(opts)
	t.Cleanup(o.Close)
	return o
}

// gate is a job body that blocks until released, to hold a chat busy while
// the test queues more work behind it.
type gate struct {
	started chan struct{}
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan struct{}), release: make(chan struct{})} }

// hold occupies chat with a call that waits for the gate's release and
// returns once it runs, with its result channel: what is enqueued for chat
// next stays queued until g.release is closed.
func (g *gate) hold(o *Outbox, r *recorder, chat int64) <-chan error {
	ch := o.Enqueue(g.job(r, chat, "busy"))
	<-g.started
	return ch
}

// keyed is r.job with a Key (a newer job of the same key supersedes it).
func (r *recorder) keyed(chat int64, p Priority, label, key string) Job {
	j := r.job(chat, p, label)
	j.Key = key
	return j
}

func (g *gate) job(r *recorder, chat int64, label string) Job {
	return Job{ChatID: chat, Do: func(ctx context.Context) error {
		r.add(chat, label)
		close(g.started)
		select {
		case <-g.release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
}

// waitAll receives one result from each channel.
func waitAll(t *testing.T, chans ...<-chan error) []error {
	t.Helper()
	out := make([]error, len(chans))
	for i, ch := range chans {
		out[i] = <-ch
	}
	return out
}
