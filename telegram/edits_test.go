package telegram_test

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

func TestEditedMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.N == 1 {
				<-release
			}
			tr.Complete("done: " + tr.Prompt)
		})
		first := h.say("first")
		h.awaitText(h.dm.ID, "working") // the first turn holds the session
		second := h.say("secnd")
		h.awaitText(h.dm.ID, "Queued")

		// Edited while queued: the new text is what runs, also after a restart.
		h.tg.EditMessage(h.user, h.dm, second, "second")
		h.awaitText(h.dm.ID, "Updated before it ran")
		q, err := h.pending(strconv.FormatInt(h.dm.ID, 10))
		if err != nil || len(q) != 1 || q[0].Text != "second" {
			t.Errorf("stored queue after the edit: %+v, %v", q, err)
		}
		// Edited while running: nothing changes, and the user is told.
		h.tg.EditMessage(h.user, h.dm, first, "first, reworded")
		h.awaitText(h.dm.ID, "running already")

		close(release)
		h.awaitText(h.dm.ID, "done: second")
		for _, txt := range h.messages(h.dm.ID) {
			if strings.Contains(txt, "done: secnd") || strings.Contains(txt, "done: first, reworded") {
				t.Errorf("a stale or late text ran: %q", txt)
			}
		}
		// Edited after it ran.
		h.tg.EditMessage(h.user, h.dm, second, "second, again")
		h.awaitText(h.dm.ID, "has run already")
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("%d sessions started", n)
		}
	})
}

func TestEditsOfOtherMessagesAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		g := tgtest.Supergroup(-100779, "team")
		h.tg.AddChat(g)
		chatter := h.tg.SendMessage(h.user, g, "lunch?")
		h.tg.EditMessage(h.user, g, chatter, "lunch at 1?")
		stranger := tgtest.User{ID: 999002, FirstName: "Eve"}
		theirs := h.tg.SendMessage(stranger, g, "@"+h.tg.Bot().Username+" hi")
		h.tg.EditMessage(stranger, g, theirs, "@"+h.tg.Bot().Username+" rm -rf")
		cmd := h.say("/status")
		h.awaitText(h.dm.ID, "Model")
		h.tg.EditMessage(h.user, h.dm, cmd, "/status now")
		// A marker after the edits: anything they caused is in by then.
		h.say("/help")
		h.awaitText(h.dm.ID, "/cancel")
		if msgs := h.tg.Messages(g.ID); len(msgs) != 0 { // the bot's messages
			t.Errorf("the bot wrote in the group: %+v", msgs)
		}
		for _, txt := range h.messages(h.dm.ID) {
			if strings.Contains(txt, "the edit") || strings.Contains(txt, "editing it") || strings.Contains(txt, "the edited text") {
				t.Errorf("an edit of a command got a reply: %q", txt)
			}
		}
	})
}
