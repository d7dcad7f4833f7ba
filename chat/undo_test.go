package chat_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// undoEngine starts sessions that can undo, all keeping their checkpoints
// in one place, as Claude Code keeps them across a --resume.
type undoEngine struct {
	script enginetest.Script
	cp     *enginetest.Checkpoints
}

func (e undoEngine) Start(_ context.Context, spec engine.Spec) (engine.Conn, error) {
	return enginetest.WithUndo(enginetest.New("s-"+spec.SessionKey, e.script), e.cp), nil
}

// undoRig is a core on a store that outlives it (a restart is a new core).
type undoRig struct {
	t     *testing.T
	store *prefs.Store
	eng   engine.Engine
	front *recorder
	core  *chat.Core
	seq   int
}

func (r *undoRig) open() {
	r.front = &recorder{}
	core, err := chat.New(chat.Config{WorkDir: r.t.TempDir()}, r.eng, r.store, everyone{}, func(int64) bool { return true },
		r.front, redact.New(), slog.New(slog.DiscardHandler))
	if err != nil {
		r.t.Fatal(err)
	}
	core.Start(context.Background())
	r.core = core
}

func (r *undoRig) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := r.core.Stop(ctx); err != nil {
		r.t.Fatal(err)
	}
}

// run runs one prompt and returns its final.
func (r *undoRig) run(text string) chat.Final {
	r.t.Helper()
	r.seq++
	p := prefs.Prompt{UpdateID: int64(r.seq), ChatID: 7, UserID: 7, MessageID: 10 + r.seq, Text: text, Date: time.Now()}
	seq, _, err := r.store.AcceptUpdate(p.UpdateID, "7", &p)
	if err != nil {
		r.t.Fatal(err)
	}
	r.core.Submit("7", chat.Place{ChatID: 7}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
	synctest.Wait()
	r.front.mu.Lock()
	defer r.front.mu.Unlock()
	if len(r.front.finals) == 0 {
		r.t.Fatalf("%q got no final (calls %v)", text, r.front.calls)
	}
	return r.front.finals[len(r.front.finals)-1]
}

// A turn that wrote files offers to undo them; the undo restores an edited
// file and removes a created one. When later turns changed files too, the
// undo asks first and then takes theirs as well, also after a restart.
func TestUndoRestoresFiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		edited, created, later := filepath.Join(dir, "edited.txt"), filepath.Join(dir, "created.txt"), filepath.Join(dir, "later.txt")
		if err := os.WriteFile(edited, []byte("mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cp := &enginetest.Checkpoints{}
		script := func(tr *enginetest.Turn) {
			tr.Start("m")
			for _, f := range strings.Fields(tr.Prompt)[1:] { // "write FILE…"
				if err := tr.Write(cp, f, "claude's\n"); err != nil {
					t.Error(err)
				}
			}
			tr.Complete("written")
		}
		store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		r := &undoRig{t: t, store: store, eng: undoEngine{script: script, cp: cp}}
		r.open()
		ctx := context.Background()
		place := chat.Place{ChatID: 7}

		first := r.run("write " + edited + " " + created)
		if first.Undo == nil || !slices.Equal(first.Undo.Files, []string{edited, created}) {
			t.Fatalf("the turn's undo offer = %+v, want both files", first.Undo)
		}
		if quiet := r.run("write"); quiet.Undo != nil {
			t.Errorf("a turn that wrote nothing offers %+v", quiet.Undo)
		}
		res, err := r.core.Undo(ctx, "7", place, first.Undo.ID, false)
		if err != nil || res.Confirm || !slices.Equal(res.Files, []string{edited, created}) {
			t.Fatalf("undo = %+v, %v", res, err)
		}
		if b, _ := os.ReadFile(edited); string(b) != "mine\n" {
			t.Errorf("edited file after undo = %q, want the owner's text", b)
		}
		if _, err := os.Stat(created); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("created file after undo: %v, want it gone", err)
		}

		second := r.run("write " + edited)
		r.run("write " + later)
		res, err = r.core.Undo(ctx, "7", place, second.Undo.ID, false)
		if err != nil || !res.Confirm || !slices.Equal(res.Files, []string{edited, later}) {
			t.Fatalf("undo under a later turn's changes = %+v, %v; want a confirm listing both", res, err)
		}
		if _, err := os.Stat(later); err != nil {
			t.Fatalf("a confirm undid already: %v", err)
		}

		// A restart: the new core knows nothing of the turns, resumes the
		// session to undo, and confirms first.
		r.stop()
		r.open()
		defer r.stop()
		if res, err = r.core.Undo(ctx, "7", place, second.Undo.ID, false); err != nil || !res.Confirm {
			t.Fatalf("undo after a restart = %+v, %v; want a confirm", res, err)
		}
		if res, err = r.core.Undo(ctx, "7", place, second.Undo.ID, true); err != nil || res.Confirm {
			t.Fatalf("confirmed undo after a restart = %+v, %v", res, err)
		}
		if b, _ := os.ReadFile(edited); string(b) != "mine\n" {
			t.Errorf("edited file after the confirmed undo = %q", b)
		}
		if _, err := os.Stat(later); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the later turn's file after the confirmed undo: %v, want it gone", err)
		}
		if _, err := r.core.Undo(ctx, "7", place, second.Undo.ID, true); !errors.Is(err, engine.ErrNothingToRewind) {
			t.Errorf("a second undo = %v, want nothing to rewind", err)
		}
	})
}

// An engine that cannot undo offers nothing and says so when asked.
func TestUndoWithoutTheCapability(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		r := &undoRig{t: t, store: store, eng: fakeEngine{script: func(tr *enginetest.Turn) { tr.Start("m"); tr.Complete("ok") }}}
		r.open()
		defer r.stop()
		if f := r.run("hello"); f.Undo != nil || f.NoUndo {
			t.Errorf("final of an engine without undo: %+v", f)
		}
		if _, err := r.core.Undo(context.Background(), "7", chat.Place{ChatID: 7}, "x", false); !errors.Is(err, chat.ErrNoUndo) {
			t.Errorf("undo = %v, want ErrNoUndo", err)
		}
	})
}
