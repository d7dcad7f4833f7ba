package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// BenchmarkHeldReplay1MB is a re-attach whose replay holds about 1 MiB of
// journal: one turn of the fake CLI echoing a prompt of 340 KiB (the
// prompt, the answer and the result). From the call to Reattach to the
// Replayed event, the runner's decoding of the replayed lines included.
// (The journal keeps only the running turn: a replay is at most one.)
// Goal: at most 100 ms.
func BenchmarkHeldReplay1MB(b *testing.B) {
	opts := fakeOpts(b, "echo")
	opts.Hold = testHold(b)
	s, err := Start(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	if err := s.Send(context.Background(), strings.Repeat("x", 340<<10)); err != nil {
		b.Fatal(err)
	}
	first := s.SentAt()
	for ev := range s.Events() {
		if _, ok := ev.(engine.TurnCompleted); ok {
			break
		}
	}
	if fi, err := os.Stat(filepath.Join(h.Dir, "journal")); err != nil || fi.Size() < 1000000 {
		b.Fatalf("journal: %v %v", fi, err)
	}
	s.Detach()
	for range s.Events() {
	}
	b.ResetTimer()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := Reattach(ctx, opts, s.HoldHandle(), first)
		if err != nil {
			b.Fatal(err)
		}
		turns := 0
		for ev := range r.Events() {
			if _, ok := ev.(engine.TurnCompleted); ok {
				turns++
			}
			if _, ok := ev.(engine.Replayed); ok {
				break
			}
		}
		if turns != 1 {
			b.Fatalf("replayed %d turns, want 1", turns)
		}
		r.Detach()
		for range r.Events() {
		}
		cancel()
	}
}
