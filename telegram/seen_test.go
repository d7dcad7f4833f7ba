package telegram_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// blockFirst holds the turn "first" until release closes; others answer
// at once.
func blockFirst(release chan struct{}) enginetest.Script {
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		if tr.Prompt == "first" {
			<-release
		}
		tr.Complete("answer to " + tr.Prompt)
	}
}

// A message that waits behind a running turn is shown as seen at once: a
// chat action, which costs no message, before any queue wait (before,
// a private chat's turn showed drafts only, and the waiting message got
// nothing until its turn began).
func TestMessageSeenAtOnceWhileItWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, blockFirst(release))
		h.say("first")
		time.Sleep(5 * time.Second) // past the first message's own typing
		synctest.Wait()
		sent := time.Now()
		h.say("second")
		synctest.Wait()
		seen := false
		for _, c := range h.tg.CallsTo("sendChatAction") {
			if c.Int64("chat_id") == h.dm.ID && c.Params["action"] == "typing" && !c.Time.Before(sent) && c.OK() {
				seen = true
			}
		}
		if !seen {
			t.Errorf("no chat action for the second message while it waited behind the first turn")
		}
		close(release)
		h.awaitAnswer(h.dm.ID, "answer to second")
	})
}

// A message that comes in a turn's last moments costs the chat no
// "Queued" message: the wait lasted milliseconds, and the note would
// have made the follow-up's answer wait for the chat's window (3
// messages in 3 s). Before, the note went at once.
func TestNoQueuedNoteForAMomentsWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, blockFirst(release))
		h.say("first")
		synctest.Wait()
		h.say("second")
		synctest.Wait() // the second is queued behind the first
		close(release)
		h.awaitAnswer(h.dm.ID, "answer to second")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if msgs := h.messages(h.dm.ID); len(msgs) != 2 {
			t.Errorf("the chat got %q, want the two answers only (no note of a wait of no time, nor a progress message made of it)", msgs)
		}
	})
}

// While a draft shows Claude writing its answer and no tool runs, the
// turn sends no progress message: the answer is about to follow, and a
// progress message would make it wait for the chat's window. Before, it
// went at ProgressDelay, holding the answer's text, just before the answer.
func TestNoProgressMessageWhileTheAnswerIsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			time.Sleep(500 * time.Millisecond)
			tr.Emit(engine.Text{Text: "The fix", Partial: true})
			time.Sleep(400 * time.Millisecond)
			tr.Emit(engine.Text{Text: "The fix is in decode.go", Partial: true})
			time.Sleep(400 * time.Millisecond) // past ProgressDelay (1 s)
			tr.Emit(engine.Text{Text: "The fix is in decode.go."})
			tr.Complete("The fix is in decode.go.")
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second }) // the default edit interval
		h.say("fix it")
		h.awaitAnswer(h.dm.ID, "The fix is in decode.go.")
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if msgs := h.messages(h.dm.ID); len(msgs) != 1 {
			t.Errorf("the chat got %q, want the answer only (no progress message while it was written)", msgs)
		}
		if len(h.tg.Drafts(h.dm.ID)) == 0 {
			t.Error("no draft showed the answer being written")
		}
	})
}

// A draft that goes still (Claude stopped writing and thinks on, no tool)
// gets the progress message after all, an edit interval later: the hold
// is bounded.
func TestProgressMessageOnceTheDraftIsStill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			time.Sleep(800 * time.Millisecond)
			tr.Emit(engine.Text{Text: "Let me think", Partial: true})
			<-release
			tr.Complete("done thinking")
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second })
		h.say("think")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return len(m.Keyboard) > 0 })
		close(release)
		h.awaitAnswer(h.dm.ID, "done thinking")
	})
}

// A long answer written without a pause still gets its progress message
// (and its Cancel button): the draft holds it back for a while, not for the
// whole answer. Before, a steady stream held it until the answer.
func TestLongAnswerGetsItsProgressMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			text := ""
			for i := 0; ; i++ {
				select {
				case <-release:
					tr.Complete(text)
					return
				case <-time.After(300 * time.Millisecond):
				}
				text += "word "
				tr.Emit(engine.Text{Text: text, Partial: true})
			}
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second })
		h.say("write a lot")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return len(m.Keyboard) > 0 })
		close(release)
		h.awaitAnswer(h.dm.ID, "word")
	})
}

// A message whose Claude has to wait for other chats' starts is shown as
// seen at once, not after the placeholder's usual delay: in a burst the
// start wait lasts seconds, and the placeholder's 300 ms was the first
// reaction of most chats (docs/performance.md). Before, the second chat
// saw nothing until 300 ms.
func TestMessageSeenAtOnceWhileItsStartWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			if tr.Prompt == "first" {
				<-release // not started yet: it keeps the one start place
			}
			tr.Start("m")
			tr.Complete("answer to " + tr.Prompt)
		}, func(c *telegram.Config) {
			c.MaxStarts = 1
			c.AllowedUsers = append(c.AllowedUsers, 5151)
		})
		other := tgtest.User{ID: 5151, FirstName: "Grace"}
		otherDM := tgtest.PrivateChat(other)
		h.say("first")
		time.Sleep(5 * time.Second) // the first chat's turn holds the start place
		synctest.Wait()
		sent := time.Now()
		h.tg.SendMessage(other, otherDM, "second")
		synctest.Wait()
		seen := false
		for _, name := range []string{"sendChatAction", "sendMessageDraft"} {
			for _, c := range h.tg.CallsTo(name) {
				if c.Int64("chat_id") == otherDM.ID && c.Time.Equal(sent) && c.OK() {
					seen = true
				}
			}
		}
		if !seen {
			t.Errorf("no sign for the second chat's message at once while its start waited")
		}
		close(release)
		h.awaitAnswer(h.dm.ID, "answer to first")
		h.awaitAnswer(otherDM.ID, "answer to second")
	})
}
