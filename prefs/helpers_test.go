package prefs

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testClock is an injected clock that moves only when told to.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// dbPath returns a path under a fresh temp dir, in a directory that does not exist yet.
func dbPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "state", "untether.db")
}

func openAt(t testing.TB, path string, opts ...Option) *Store {
	t.Helper()
	opts = append([]Option{WithLogger(quietLogger())}, opts...)
	s, err := Open(context.Background(), path, opts...)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func openTest(t *testing.T, opts ...Option) *Store {
	t.Helper()
	return openAt(t, dbPath(t), opts...)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assertUnchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	if got := readFile(t, path); !bytes.Equal(got, want) {
		t.Fatalf("%s was modified: %d bytes before, %d after", path, len(want), len(got))
	}
	if _, err := os.Stat(ownerPath(path)); !os.IsNotExist(err) {
		t.Fatalf("owner note written for a file that was refused (stat err %v)", err)
	}
}

func ptr[T any](v T) *T { return &v }

// The bot runs with a fixed clock source, handled window and resume failure limit; the tests
// set them through these.
func withClock(now func() time.Time) Option { return func(o *options) { o.now = now } }
func withHandledWindow(n int) Option        { return func(o *options) { o.handledWindow = n } }
func withMaxResumeFailures(n int) Option    { return func(o *options) { o.maxResumeFailures = n } }

// pendingOf returns key's queued prompts, oldest first.
func pendingOf(t *testing.T, s *Store, key string) []QueuedPrompt {
	t.Helper()
	all, err := s.AllPendingPrompts()
	if err != nil {
		t.Fatal(err)
	}
	var out []QueuedPrompt
	for _, qp := range all {
		if qp.Key == key {
			out = append(out, qp)
		}
	}
	return out
}
