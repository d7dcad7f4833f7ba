package chat_test

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The last turn's diff is what that turn changed (between the snapshots
// its footer compared), not what was uncommitted before it: a file
// changed before the turn is not in it.
func TestLastTurnDiff(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte("old\n"), 0o600)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "first")
	os.WriteFile(filepath.Join(dir, "old.txt"), []byte("changed before the turn\n"), 0o600)

	ctx := context.Background()
	store, err := prefs.Open(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	eng := fakeEngine{script: func(tr *enginetest.Turn) {
		tr.Start("m")
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\nTWO\nthree\n"), 0o600)
		tr.Complete("edited")
	}}
	front := &recorder{}
	core, err := chat.New(chat.Config{WorkDir: dir}, eng, store, everyone{}, func(int64) bool { return true },
		front, redact.New(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	core.Start(ctx)
	defer func() {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		_ = core.Stop(sctx)
	}()
	if _, ok, err := core.LastTurnDiff(ctx, "7"); ok || err != nil {
		t.Fatalf("before any turn: ok %v, err %v", ok, err)
	}
	p := prefs.Prompt{UpdateID: 1, ChatID: 7, UserID: 7, MessageID: 10, Text: "edit a.txt", Date: time.Now()}
	seq, _, err := store.AcceptUpdate(p.UpdateID, "7", &p)
	if err != nil {
		t.Fatal(err)
	}
	core.Submit("7", chat.Place{ChatID: 7}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) { // a hang's bound
		front.mu.Lock()
		done := slices.Contains(front.calls, "closed")
		front.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn did not end")
		}
	}
	d, ok, err := core.LastTurnDiff(ctx, "7")
	if err != nil || !ok {
		t.Fatalf("after the turn: ok %v, err %v", ok, err)
	}
	if len(d.Files) != 1 || d.Files[0].Path != "a.txt" || d.Files[0].Added != 2 || d.Files[0].Removed != 1 {
		t.Errorf("files %+v, want a.txt +2 -1 only", d.Files)
	}
	if !strings.Contains(d.Patch, "+TWO") || !strings.Contains(d.Patch, "-two") || strings.Contains(d.Patch, "old.txt") {
		t.Errorf("patch:\n%s", d.Patch)
	}
}
