package telegram_test

import (
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/view"
)

// A message sent into the running turn leaves the queue: the "Queued"
// notes of the messages behind it count one fewer ahead (and keep their
// Send now button); the note of one ahead of it does not change.
func TestSteeredMessageRecountsTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took, finish := make(chan struct{}), make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt != "work" {
				tr.Complete("done: " + tr.Prompt)
				return
			}
			<-took
			tr.TakeSteered()
			<-finish
			tr.Complete("done: work")
		})
		h.say("work")
		synctest.Wait()
		h.say("first")
		h.awaitText(h.dm.ID, view.QueuedNote(1))
		h.say("second")
		second := h.awaitText(h.dm.ID, view.QueuedNote(2))
		h.say("third")
		third := h.awaitText(h.dm.ID, view.QueuedNote(3))
		h.press(h.user, h.dm, second, "⚡ Send now")
		synctest.Wait()
		close(took)
		h.tg.Await(wait, "the third note recounted", func() bool {
			m, _ := h.tg.Message(h.dm.ID, third.ID)
			return m.Text == view.QueuedNote(2)
		})
		if m, _ := h.tg.Message(h.dm.ID, third.ID); len(m.Keyboard) == 0 {
			t.Error("the recounted note lost its Send now button")
		}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if m.Text == view.QueuedNote(0) {
				t.Errorf("a note ahead of the steered message was recounted: %q", m.Text)
			}
		}
		close(finish)
		h.awaitText(h.dm.ID, "done: third")
	})
}
