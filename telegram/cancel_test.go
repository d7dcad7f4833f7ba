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
	"github.com/untether/untether/runner/runnertest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A cancel is for one turn: pressed while that turn's answer is still
// being sent (Telegram refuses it for a while), it must not stop the next
// turn, which comes later and runs to its answer.
func TestLateCancelDoesNotReachNextTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := newHarness(t, func(tr *runnertest.Turn) {
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
		h := newHarness(t, func(tr *runnertest.Turn) {
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
