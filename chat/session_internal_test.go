package chat

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/untether/untether/prefs"
)

// TestResetDropsTheQueueInOneWrite: /new with prompts queued marks them
// all done in one state-file transaction. Before, requestReset wrote each
// one (a disk sync apiece) while holding the session's lock, which /cancel
// on the polling loop also takes: a long queue stalled the poll loop.
func TestResetDropsTheQueueInOneWrite(t *testing.T) {
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	c := &Core{store: store, log: slog.New(slog.DiscardHandler), surface: quietSurface{}}
	a := newSession(c, "1", Place{ChatID: 1})
	a.running = true // the test stands in for the session's loop: none is started
	for i := range 5 {
		p := prefs.Prompt{UpdateID: int64(100 + i), ChatID: 1, Text: "queued"}
		seq, _, err := store.AcceptUpdate(p.UpdateID, "1", &p)
		if err != nil {
			t.Fatal(err)
		}
		a.queue = append(a.queue, prefs.QueuedPrompt{Key: "1", Seq: seq, Prompt: p})
	}
	before := store.Commits()
	if n := a.requestReset(nil); n != 5 {
		t.Errorf("dropped %d prompts, want 5", n)
	}
	if n := store.Commits() - before; n != 1 {
		t.Errorf("dropping 5 queued prompts took %d state-file writes, want 1", n)
	}
	if left, err := store.AllPendingPrompts(); err != nil || len(left) != 0 {
		t.Errorf("still queued in the store: %+v, %v", left, err)
	}
}
