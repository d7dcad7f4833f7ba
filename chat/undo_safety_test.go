package chat_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
)

// A later turn that changed only the same file: undoing the first turn
// would take that work too, so it asks first and changes nothing yet.
// Before, it undid both without asking.
func TestUndoAsksWhenALaterTurnChangedTheSameFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(f, []byte("orig\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		r := writerRig(t)
		defer r.stop()
		first := r.run("write one " + f)
		r.run("write two " + f)
		res, err := r.core.Undo(context.Background(), "7", chat.Place{ChatID: 7}, first.Undo.ID, false)
		b, _ := os.ReadFile(f)
		if err != nil || !res.Confirm || string(b) != "two\n" {
			t.Errorf("undo of the first turn: %+v, %v, the file reads %q; want a confirm and the file untouched", res, err, b)
		}
	})
}

// raceEngine notes its starts and real rewinds (its goroutines and the
// test's share them under mu).
type raceEngine struct {
	script  enginetest.Script
	cp      *enginetest.Checkpoints
	mu      *sync.Mutex
	starts  *int
	working func() bool
	log     *[]string
}

func (e raceEngine) note(s string) {
	e.mu.Lock()
	*e.log = append(*e.log, s)
	e.mu.Unlock()
}

type raceConn struct {
	enginetest.Undoable
	e raceEngine
}

func (c raceConn) Rewind(ctx context.Context, id string, dry bool) (engine.Rewind, error) {
	if !dry {
		c.e.note(fmt.Sprintf("real rewind while a turn works: %v", c.e.working()))
	}
	return c.Undoable.Rewind(ctx, id, dry)
}

func (e raceEngine) Start(_ context.Context, spec engine.Spec) (engine.Conn, error) {
	e.mu.Lock()
	*e.starts++
	n := *e.starts
	e.mu.Unlock()
	if n == 2 { // the undo's resume after the restart: slow to boot
		time.Sleep(2 * time.Second)
	}
	e.note(fmt.Sprintf("start %d resume=%q", n, spec.Resume))
	return raceConn{enginetest.WithUndo(enginetest.New("s-"+spec.SessionKey, e.script), e.cp), e}, nil
}

// After a restart an undo resumes a process of its own; a message sent
// while it boots waits for the undo, so no second process works on the
// session and the rewind never runs under a turn. Before, the turn started
// at once beside it.
func TestUndoHoldsTurnsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "a.txt")
		if err := os.WriteFile(f, []byte("orig\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cp := &enginetest.Checkpoints{}
		hold := make(chan struct{})
		script := func(tr *enginetest.Turn) {
			tr.Start("m")
			fs := strings.Fields(tr.Prompt)
			for _, p := range fs[2:] {
				tr.Write(cp, p, fs[1]+"\n")
			}
			if fs[1] == "hold" {
				<-hold
			}
			tr.Complete("written")
		}
		store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		var starts int
		var log []string
		var mu sync.Mutex
		r := &undoRig{t: t, store: store}
		re := raceEngine{script: script, cp: cp, mu: &mu, starts: &starts, log: &log, working: func() bool { return r.core.Working("7") }}
		r.eng = re
		r.open()
		first := r.run("write one " + f)
		r.stop()
		r.open() // a restart: no live process
		defer r.stop()
		done := make(chan struct{})
		go func() {
			res, err := r.core.Undo(context.Background(), "7", chat.Place{ChatID: 7}, first.Undo.ID, true)
			re.note(fmt.Sprintf("undo: %+v %v", res, err))
			close(done)
		}()
		time.Sleep(100 * time.Millisecond)
		// a message arrives while the undo's process boots
		r.seq++
		p := prefs.Prompt{UpdateID: int64(r.seq), ChatID: 7, UserID: 7, MessageID: 10 + r.seq, Text: "write hold " + f, Date: time.Now()}
		seq, _, err := r.store.AcceptUpdate(p.UpdateID, "7", &p)
		if err != nil {
			t.Fatal(err)
		}
		r.core.Submit("7", chat.Place{ChatID: 7}, prefs.QueuedPrompt{Key: "7", Seq: seq, Prompt: p})
		<-done
		close(hold)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, l := range log {
			if strings.Contains(l, "while a turn works: true") {
				t.Errorf("the undo's rewind ran under a turn: %q", log)
			}
		}
		if !slices.Contains(log, "undo: {Files:[] Confirm:false} <nil>") && !slices.ContainsFunc(log, func(l string) bool { return strings.HasPrefix(l, "undo: {Files:[") }) {
			t.Errorf("the undo did not finish: %q", log)
		}
	})
}

// A confirm pressed after a later turn changed more files asks again
// instead of undoing files it never listed. Before, they went too.
func TestUndoConfirmCoversOnlyWhatItListed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		f, g, h := filepath.Join(dir, "f"), filepath.Join(dir, "g"), filepath.Join(dir, "h")
		r := writerRig(t)
		defer r.stop()
		first := r.run("write one " + f)
		r.run("write two " + g)
		ask, err := r.core.Undo(context.Background(), "7", chat.Place{ChatID: 7}, first.Undo.ID, false)
		if err != nil || !ask.Confirm || len(ask.Files) != 2 {
			t.Fatalf("the first undo: %+v, %v; want a confirm listing f and g", ask, err)
		}
		r.run("write three " + h)
		res, err := r.core.Undo(context.Background(), "7", chat.Place{ChatID: 7}, first.Undo.ID, true)
		if _, statErr := os.Stat(h); statErr != nil || err != nil || !res.Confirm || len(res.Files) != 3 {
			t.Errorf("the stale confirm: %+v, %v, %s: %v; want a new confirm listing three files and h still there", res, err, h, statErr)
		}
	})
}

// writerRig is a started core whose agent, given "write WORD PATH…", writes
// WORD into each PATH through its checkpoints (so an undo can restore them).
func writerRig(t *testing.T) *undoRig {
	cp := &enginetest.Checkpoints{}
	script := func(tr *enginetest.Turn) {
		tr.Start("m")
		fs := strings.Fields(tr.Prompt)
		for _, p := range fs[2:] {
			if err := tr.Write(cp, p, fs[1]+"\n"); err != nil {
				t.Error(err)
			}
		}
		tr.Complete("written")
	}
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r := &undoRig{t: t, store: store, eng: undoEngine{script: script, cp: cp}}
	r.open()
	return r
}
