package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
)

// Review (issue 22): a holder that dies while the bot runs (OOM killer,
// a crash, a tool's kill) leaves its folder, journal included, for ever:
// the session ends with "lost the holder", the bot forgets the record, and
// only Reattach (at the next start, with the record) calls hold.Forget.
// docs/durability.md: "the journal must not outlive the session".
func TestReviewHolderKilledWhileBotRunsLeavesNoJournal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "rv-") // short: the socket path must fit
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	opts := fakeOpts(t, "echo")
	opts.Hold = &Hold{Self: exe, Root: filepath.Join(root, "hold"), Orphan: time.Minute}
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var h hold.Handle
	if err := json.Unmarshal([]byte(s.HoldHandle()), &h); err != nil || h.Dir == "" {
		t.Fatalf("not held: %q %v", s.HoldHandle(), err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-h.Pid, syscall.SIGKILL) })
	if err := s.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	for ev := range s.Events() {
		if _, ok := ev.(engine.TurnCompleted); ok {
			break
		}
	}
	if err := syscall.Kill(h.Holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for range s.Events() { // until Exited and the end
	}
	_ = s.Close(context.Background())
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(h.Dir, "journal")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the journal of a session that ended (its holder killed) is still there: %s (err %v)", h.Dir, err)
	}
}
