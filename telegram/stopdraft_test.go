package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// halfWritten writes a partial answer and then works until interrupted;
// any other prompt is answered at once.
func halfWritten(tr *enginetest.Turn) {
	tr.Start("m")
	if tr.Prompt != "write" {
		tr.Complete("answer to " + tr.Prompt)
		return
	}
	tr.Emit(engine.Text{Text: "The first **half**", Partial: true})
	<-tr.Interrupted()
	tr.Aborted()
}

// awaitStoppable waits until the chat shows a draft with a stop button
// and text.
func awaitStoppable(t *testing.T, h *harness) tgtest.Draft {
	t.Helper()
	for range 100 {
		if d, ok := h.tg.LiveDraft(h.dm.ID, 0); ok && d.CanStop && d.Text != "" {
			return d
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no stoppable draft with text")
	return tgtest.Draft{}
}

// Stop on the draft ends the turn like /cancel, keeps what was written as a
// message, says it was stopped, and the next message is answered at once.
func TestStopFromTheDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, halfWritten)
		h.say("write")
		d := awaitStoppable(t, h)
		if !d.KeepOnStop {
			t.Error("the draft goes without keep_on_stop")
		}
		if _, ok := h.tg.StopDraft(h.dm.ID, 0); !ok {
			t.Fatal("could not press stop")
		}
		kept := h.awaitText(h.dm.ID, "Stopped from the draft")
		if !strings.Contains(kept.Text, "The first half") {
			t.Errorf("the stopped turn's message = %q, want the partial text kept", kept.Text)
		}
		h.say("next")
		h.awaitText(h.dm.ID, "answer to next")
	})
}

// A stop of a draft the running turn does not show (an earlier turn's, a
// forged id) or from a chat that may not use the bot changes nothing.
func TestStaleOrForeignStopChangesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, halfWritten)
		h.say("hello")
		h.awaitText(h.dm.ID, "answer to hello")
		id := h.say("write")
		awaitStoppable(t, h)
		stranger := tgtest.PrivateChat(tgtest.User{ID: 999, FirstName: "Eve"})
		h.tg.AddUpdates(
			map[string]any{"stopped_message_generation": map[string]any{"chat": map[string]any{"id": h.dm.ID, "type": "private"}, "draft_id": id - 2}},
			map[string]any{"stopped_message_generation": map[string]any{"chat": stranger, "draft_id": id}},
		)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "Stopped") || strings.Contains(m, "Cancelled") {
				t.Fatalf("a stale or foreign stop ended the turn: %q", m)
			}
		}
		if _, ok := h.tg.StopDraft(h.dm.ID, 0); !ok {
			t.Fatal("could not press stop")
		}
		h.awaitText(h.dm.ID, "Stopped from the draft")
	})
}
