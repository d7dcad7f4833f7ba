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

// Two runs no one typed whose first message could not be sent answer no
// message of the user: each turn's draft still has an id of its own, so a
// stop pressed on the first run's draft, arriving late, does not stop the
// second.
func TestStaleStopOfAnEarlierScheduledRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			if tr.Prompt != "slow" {
				halfWritten(tr)
				return
			}
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Slowly", Partial: true})
			time.Sleep(10 * time.Second)
			tr.Complete("answer to slow")
		})
		defer h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.HasPrefix(c.Params["text"], "⏰ Once")
		}, tgtest.Failure{Code: 400, Description: "Bad Request: message is too long"})()
		h.say("/at 1m slow")
		h.awaitText(h.dm.ID, "Scheduled")
		time.Sleep(2 * time.Minute)
		h.awaitText(h.dm.ID, "answer to slow")
		first := h.tg.Drafts(h.dm.ID)
		if len(first) == 0 {
			t.Fatal("the first run showed no draft")
		}
		h.say("/at 1m write")
		h.awaitText(h.dm.ID, "Scheduled")
		time.Sleep(2 * time.Minute)
		d := awaitStoppable(t, h)
		if d.ID == first[len(first)-1].ID {
			t.Errorf("both runs' drafts have id %d", d.ID)
		}
		h.tg.AddUpdate(map[string]any{"stopped_message_generation": map[string]any{
			"chat": map[string]any{"id": h.dm.ID, "type": "private"}, "draft_id": first[len(first)-1].ID}})
		time.Sleep(5 * time.Second)
		synctest.Wait()
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "Stopped") || strings.Contains(m, "Cancelled") {
				t.Fatalf("a stop of the earlier run's draft ended the later run: %q", m)
			}
		}
		if _, ok := h.tg.StopDraft(h.dm.ID, 0); !ok {
			t.Fatal("could not press stop")
		}
		h.awaitText(h.dm.ID, "Stopped from the draft")
	})
}
