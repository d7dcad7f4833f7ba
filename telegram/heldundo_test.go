package telegram_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
)

// heldUndo is a held session that also takes prompts under the bot's ids
// and undoes file changes (as runner's held Session does).
type heldUndo struct {
	*heldConn
	u enginetest.Undoable
}

func (c heldUndo) SendAs(ctx context.Context, id, text string) error {
	c.sentAt.Store(c.p.add(heldRecord{prompt: true}))
	return c.u.SendAs(ctx, id, text)
}

func (c heldUndo) Rewind(ctx context.Context, id string, dry bool) (engine.Rewind, error) {
	return c.u.Rewind(ctx, id, dry)
}

type heldUndoEngine struct {
	*heldEngine
	cp *enginetest.Checkpoints
}

func (e heldUndoEngine) wrap(c engine.Conn) engine.Conn {
	hc := c.(*heldConn)
	return heldUndo{hc, enginetest.WithUndo(hc.p.s, e.cp)}
}

func (e heldUndoEngine) Start(ctx context.Context, spec engine.Spec) (engine.Conn, error) {
	c, err := e.heldEngine.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	return e.wrap(c), nil
}

func (e heldUndoEngine) Reattach(ctx context.Context, spec engine.Spec, handle string, from uint64) (engine.Conn, error) {
	c, err := e.heldEngine.Reattach(ctx, spec, handle, from)
	if err != nil {
		return nil, err
	}
	return e.wrap(c), nil
}

// A turn the bot carried on after a restart (its Claude held) ends with
// "↩ Undo" when it changed files, like any turn: its prompt's id is kept
// with the held turn.
func TestHeldAdoptedTurnOffersUndo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "made.txt")
		cp := &enginetest.Checkpoints{}
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if err := tr.Write(cp, file, "claude's\n"); err != nil {
				t.Error(err)
			}
			<-release // the bot stops and starts again meanwhile
			tr.Complete("wrote it")
		})
		h.engine = heldUndoEngine{newHeldEngine(h.eng), cp}
		synctest.Wait()
		h.stop()
		h.start()
		h.say("write")
		synctest.Wait()
		h.stop()
		synctest.Wait()
		h.start()
		synctest.Wait()
		close(release)
		answer := h.awaitPrompt(h.dm.ID, "Undo", "wrote it")
		if got := h.toast(h.press(h.user, h.dm, answer, "Undo")); got != "Undone" {
			t.Errorf("toast = %q, want Undone", got)
		}
		h.awaitText(h.dm.ID, "Undone.")
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("the created file after the undo: %v", err)
		}
		h.stop()
		_ = h.eng.session(0).Close(context.Background())
	})
}
