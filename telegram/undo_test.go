package telegram_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// The "↩ Undo" button under an answer undoes the turn's file changes: an
// edited file comes back, a created one goes. After a restart the same
// button still works, confirming first because the bot no longer knows
// what later turns changed. A turn that wrote nothing has no button.
func TestUndoButton(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		edited, created := filepath.Join(dir, "edited.txt"), filepath.Join(dir, "created.txt")
		if err := os.WriteFile(edited, []byte("mine\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cp := &enginetest.Checkpoints{}
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			for _, f := range strings.Fields(tr.Prompt)[1:] { // "write FILE…"
				if err := tr.Write(cp, f, "claude's\n"); err != nil {
					t.Error(err)
				}
			}
			tr.Complete("wrote " + tr.Prompt)
		})
		h.eng.mu.Lock()
		h.eng.wrap = func(_ engine.Spec, s *enginetest.Session) engine.Conn { return enginetest.WithUndo(s, cp) }
		h.eng.mu.Unlock()

		h.say("write " + edited + " " + created)
		answer := h.awaitPrompt(h.dm.ID, "Undo", "wrote write")
		h.say("nothing")
		if quiet := h.awaitText(h.dm.ID, "wrote nothing"); len(quiet.Keyboard) != 0 {
			t.Errorf("an answer without changes has buttons: %v", buttonTexts(quiet))
		}
		if got := h.toast(h.press(h.user, h.dm, answer, "Undo")); got != "Undone" {
			t.Errorf("toast = %q, want Undone", got)
		}
		done := h.awaitText(h.dm.ID, "Undone.")
		if !strings.Contains(done.Text, edited) || !strings.Contains(done.Text, created) {
			t.Errorf("the undo names %q, want both files", done.Text)
		}
		if b, _ := os.ReadFile(edited); string(b) != "mine\n" {
			t.Errorf("edited file after undo = %q", b)
		}
		if _, err := os.Stat(created); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("created file after undo: %v", err)
		}

		h.say("write " + created)
		again := h.awaitPrompt(h.dm.ID, "Undo", "wrote write "+created)
		synctest.Wait()
		h.stop()
		h.start()
		if got := h.toast(h.press(h.user, h.dm, again, "Undo")); !strings.Contains(got, "confirm") {
			t.Errorf("toast after a restart = %q, want a confirm", got)
		}
		confirm := h.awaitPrompt(h.dm.ID, "Undo all of it", created)
		if _, err := os.Stat(created); err != nil {
			t.Fatalf("undone before the confirm: %v", err)
		}
		h.press(h.user, h.dm, confirm, "Undo all of it")
		h.awaitResolved(h.dm.ID, confirm.ID, "Undone.")
		if _, err := os.Stat(created); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("created file after the confirmed undo: %v", err)
		}
	})
}

// In a group with approvers, only they may undo: it changes the project's
// files like an approved edit.
func TestUndoOnlyByApprovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		made := filepath.Join(t.TempDir(), "made.txt")
		cp := &enginetest.Checkpoints{}
		bob := tgtest.User{ID: 5151, FirstName: "Bob", Username: "bob"}
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			if err := tr.Write(cp, made, "x"); err != nil {
				t.Error(err)
			}
			tr.Complete("made it")
		}, func(c *telegram.Config) {
			c.AllowedUsers = append(c.AllowedUsers, bob.ID)
			c.Approvers = []int64{h0}
		})
		h.eng.mu.Lock()
		h.eng.wrap = func(_ engine.Spec, s *enginetest.Session) engine.Conn { return enginetest.WithUndo(s, cp) }
		h.eng.mu.Unlock()
		g := tgtest.Supergroup(-100777, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" make it")
		answer := h.awaitPrompt(g.ID, "Undo", "made it")
		if got := h.toast(h.press(bob, g, answer, "Undo")); !strings.Contains(got, "may answer") {
			t.Errorf("toast for bob = %q, want a refusal naming the approvers", got)
		}
		if _, err := os.Stat(made); err != nil {
			t.Fatalf("bob's press undid: %v", err)
		}
		if got := h.toast(h.press(h.user, g, answer, "Undo")); got != "Undone" {
			t.Errorf("approver's toast = %q", got)
		}
		if _, err := os.Stat(made); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file after the approver's undo: %v", err)
		}
	})
}

// h0 is the harness user's id (@ada).
const h0 = 4242
