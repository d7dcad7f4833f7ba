package telegram_test

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A cancel is for one turn: pressed while that turn's answer is still
// being sent (Telegram refuses it for a while), it must not stop the next
// turn, which comes later and runs to its answer.
func TestLateCancelDoesNotReachNextTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "first" {
				time.Sleep(2 * time.Second) // long enough to get a progress message with Cancel
			}
			if tr.Prompt == "later" {
				tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "make build"})
				select {
				case <-gate:
				case <-tr.Interrupted():
				}
				select {
				case <-tr.Interrupted():
					tr.Aborted()
					return
				default:
				}
			}
			tr.Complete("answer to " + tr.Prompt)
		})
		final := func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "answer to first")
		}
		stop := h.tg.FailWhen(final, tgtest.Failure{Code: 502})
		id := h.say("first")
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id && len(m.Keyboard) > 0 })
		h.tg.Await(wait, "the answer being sent", func() bool {
			return slices.ContainsFunc(h.tg.Calls(), final)
		})
		// Every way to cancel, while the answer is still on its way. The
		// replies queue behind the answer; a press is answered apart, and the
		// second one shows the commands before it were handled.
		press := func() {
			cq := h.tg.PressButton(h.user, h.dm, prog.ID, prog.Keyboard[0][0].CallbackData)
			h.tg.Await(wait, "the press answered", func() bool { _, ok := h.tg.CallbackAnswer(cq); return ok })
		}
		press()
		h.say("/cancel")
		h.say("/new")
		press()
		stop()
		h.awaitText(h.dm.ID, "answer to first")

		later := h.say("later")
		h.tg.Await(wait, "the next turn working (or cancelled)", func() bool {
			for _, m := range h.tg.Messages(h.dm.ID) {
				if m.ReplyTo == later && (strings.Contains(m.Text, "make build") || strings.Contains(m.Text, "Cancelled")) {
					return true
				}
			}
			return false
		})
		close(gate)
		h.awaitText(h.dm.ID, "answer to later")
		for _, txt := range h.messages(h.dm.ID) {
			if strings.Contains(txt, "Cancelled") {
				t.Errorf("a cancel meant for the first turn reached a later one: %q", txt)
			}
		}
	})
}

// /cancel while the turn waits for a free Claude slot stops it there: the
// user sees it cancelled at once, Claude never gets the prompt, and it is
// not run later when a slot frees.
func TestCancelWhileWaitingForASlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedScript{}
		var mu sync.Mutex
		var ran []string
		bo := tgtest.User{ID: 5001, FirstName: "Bo"}
		h := newHarness(t, func(tr *enginetest.Turn) {
			mu.Lock()
			ran = append(ran, tr.Prompt)
			mu.Unlock()
			g.run(tr)
		}, func(c *telegram.Config) {
			c.MaxLive = 1
			c.AllowedUsers = append(c.AllowedUsers, bo.ID)
		})
		boChat := tgtest.PrivateChat(bo)
		boKey := strconv.FormatInt(bo.ID, 10)

		h.say("hold a1")
		h.awaitText(h.dm.ID, "working")
		h.tg.SendMessage(bo, boChat, "b1")
		h.awaitText(boChat.ID, "Waiting for a free Claude slot")
		h.tg.SendMessage(bo, boChat, "/cancel")
		h.awaitText(boChat.ID, "Cancelled")
		if n := len(h.eng.sessionsOf(boKey)); n != 0 {
			t.Errorf("Claude started for a cancelled turn (%d sessions)", n)
		}

		close(g.gate("hold a1"))
		h.awaitText(h.dm.ID, "answer to hold a1")
		h.tg.SendMessage(bo, boChat, "b2")
		h.awaitText(boChat.ID, "answer to b2")
		mu.Lock()
		defer mu.Unlock()
		if slices.Contains(ran, "b1") {
			t.Errorf("the cancelled prompt ran after all: %q", ran)
		}
		if q, err := h.pending(boKey); err != nil || len(q) != 0 {
			t.Errorf("queue after the cancel: %+v, %v", q, err)
		}
		for _, txt := range h.messages(boChat.ID) {
			if strings.Contains(txt, "answer to b1") {
				t.Errorf("the cancelled prompt was answered: %q", txt)
			}
		}
	})
}

// /cancel answers with one notice, edited from "Cancelling…" to its
// outcome: no second message, which would spend the chat's window.
func TestCancelOneNoticeEdited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "make build"})
			<-tr.Interrupted()
			time.Sleep(500 * time.Millisecond) // the notice is out before the turn ends
			tr.Aborted()
		})
		id := h.say("long")
		h.progressFor(h.dm.ID, id)
		before := len(h.tg.CallsTo("sendMessage"))
		cmd := h.say("/cancel")
		notice := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == cmd })
		h.awaitResolved(h.dm.ID, notice.ID, "⏹ Cancelled")
		synctest.Wait()
		m, _ := h.tg.Message(h.dm.ID, notice.ID)
		if !strings.Contains(notice.Text, "Cancelling") || m.Edits != 1 {
			t.Errorf("the notice should read Cancelling… and be edited once to its outcome: first %q, now %q after %d edits",
				notice.Text, m.Text, m.Edits)
		}
		if sent := sentSince(h, before); len(sent) != 1 {
			t.Errorf("/cancel sent %d messages, want the one notice: %q", len(sent), sent)
		}
	})
}

// A /cancel whose turn ended on its own first (Claude's result crossed
// the interrupt) says so in its notice, which does not stay at
// "Cancelling…".
func TestCancelTooLateSaysSo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			<-tr.Interrupted()
			tr.Complete("the answer") // written before the interrupt was read
		})
		id := h.say("work")
		h.progressFor(h.dm.ID, id)
		cmd := h.say("/cancel")
		notice := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == cmd })
		h.awaitText(h.dm.ID, "the answer")
		h.awaitResolved(h.dm.ID, notice.ID, "The turn had ended before the cancel reached it")
	})
}

// An outcome known before the notice goes out (Telegram refused the first
// try) is what the one message reads: sent once, never edited.
func TestCancelNoticeSentWithItsOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, untilCancelled)
		id := h.say("long")
		h.progressFor(h.dm.ID, id)
		defer h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "Cancelling")
		}, tgtest.Failure{Code: 502})()
		cmd := h.say("/cancel")
		notice := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == cmd })
		synctest.Wait()
		m, _ := h.tg.Message(h.dm.ID, notice.ID)
		if !strings.Contains(m.Text, "⏹ Cancelled") || m.Edits != 0 {
			t.Errorf("notice %q after %d edits: want the outcome as sent", m.Text, m.Edits)
		}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if m.ID != notice.ID && strings.Contains(m.Text, "⏹ Cancelled") {
				t.Errorf("the outcome came twice: also in message %d", m.ID)
			}
		}
	})
}

// /new during a turn cancels it: its reply is the only message, without
// "⏹ Cancelled… The session is still here", which the fresh start belies.
func TestNewDuringTurnOneMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, untilCancelled)
		id := h.say("long")
		prog := h.progressFor(h.dm.ID, id)
		before := len(h.tg.CallsTo("sendMessage"))
		h.say("/new")
		h.awaitText(h.dm.ID, "Fresh start")
		h.awaitResolved(h.dm.ID, prog.ID, "cancelled")
		synctest.Wait()
		if sent := sentSince(h, before); len(sent) != 1 {
			t.Errorf("/new sent %d messages, want its reply alone: %q", len(sent), sent)
		}
	})
}

// sentSince is the texts of the sendMessage calls after the first before.
func sentSince(h *harness, before int) []string {
	var texts []string
	for _, c := range h.tg.CallsTo("sendMessage")[before:] {
		texts = append(texts, c.Params["text"])
	}
	return texts
}

// untilCancelled is a turn that works until it is cancelled.
func untilCancelled(tr *enginetest.Turn) {
	tr.Start("m")
	<-tr.Interrupted()
	tr.Aborted()
}

// A queued prompt's "Queued" notice becomes its turn's progress message:
// edited, not followed by a message of its own.
func TestQueuedNoteBecomesTheProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "first" {
				<-release
			} else {
				tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "make build"})
				time.Sleep(3 * time.Second) // long enough for a progress message
			}
			tr.Complete("answer to " + tr.Prompt)
		})
		h.say("first")
		h.awaitText(h.dm.ID, "working")
		second := h.say("second")
		note := h.awaitText(h.dm.ID, "Queued")
		close(release)
		h.awaitText(h.dm.ID, "answer to second")
		m, _ := h.tg.Message(h.dm.ID, note.ID)
		if !strings.Contains(m.Text, "make build") && !strings.Contains(m.Text, "done") {
			t.Errorf("the queued notice did not become the progress message: %q", m.Text)
		}
		for _, msg := range h.tg.Messages(h.dm.ID) {
			if msg.ReplyTo == second && msg.ID != note.ID && !strings.Contains(msg.Text, "answer to second") {
				t.Errorf("a second message about the queued prompt: %q", msg.Text)
			}
		}
	})
}

// The notice that a turn waits for a free Claude slot is its one message
// besides the answer: it ends as the turn's summary, like a progress
// message, instead of staying "Waiting…".
func TestWaitingForASlotIsOneNotice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &gatedScript{}
		bo := tgtest.User{ID: 5002, FirstName: "Bo"}
		h := newHarness(t, g.run, func(c *telegram.Config) {
			c.MaxLive = 1
			c.AllowedUsers = append(c.AllowedUsers, bo.ID)
		})
		boChat := tgtest.PrivateChat(bo)
		h.say("hold a1")
		h.awaitText(h.dm.ID, "working")
		b1 := h.tg.SendMessage(bo, boChat, "b1")
		note := h.awaitText(boChat.ID, "Waiting for a free Claude slot")
		close(g.gate("hold a1"))
		h.awaitText(boChat.ID, "answer to b1")
		h.tg.Await(wait, "the notice to end as a summary", func() bool {
			m, _ := h.tg.Message(boChat.ID, note.ID)
			return strings.Contains(m.Text, "done")
		})
		for _, m := range h.tg.Messages(boChat.ID) {
			if m.ReplyTo == b1 && m.ID != note.ID && !strings.Contains(m.Text, "answer to b1") {
				t.Errorf("another message about b1: %q", m.Text)
			}
		}
	})
}
