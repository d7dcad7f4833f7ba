package telegram_test

import (
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// recordingScript answers every prompt, except "hold", which waits until
// its session closes; it records every prompt Claude was given.
type recordingScript struct {
	mu  sync.Mutex
	ran []string
}

func (r *recordingScript) run(tr *enginetest.Turn) {
	r.mu.Lock()
	r.ran = append(r.ran, tr.Prompt)
	r.mu.Unlock()
	tr.Start("m")
	if tr.Prompt == "hold" {
		<-tr.Session().Done()
		return
	}
	tr.Complete("answer to " + tr.Prompt)
}

func (r *recordingScript) prompts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.ran)
}

// queueThenStop leaves prompt in chat's durable queue, behind a turn that
// holds the session, and stops the bot.
func queueThenStop(h *harness, chat tgtest.Chat, prompt string) (msgID int) {
	h.t.Helper()
	h.tg.SendMessage(h.user, chat, "hold")
	h.awaitText(chat.ID, "working")
	msgID = h.tg.SendMessage(h.user, chat, prompt)
	h.awaitText(chat.ID, "Queued")
	h.stop()
	return msgID
}

// Removing someone from the allowlist takes effect at once: a prompt of
// theirs still in the durable queue when the bot restarts is not run; the
// chat is told, and the queue is empty afterwards.
func TestQueuedPromptOfRemovedUserIsNotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recordingScript{}
		h := newHarness(t, rec.run)
		queued := queueThenStop(h, h.dm, "delete the staging database")

		h.start(func(c *telegram.Config) { c.AllowedUsers = []int64{777} })
		note := h.awaitText(h.dm.ID, "Not run: you are no longer allowed to use this bot")
		if note.ReplyTo != queued {
			t.Errorf("the note replies to %d, want the refused message %d", note.ReplyTo, queued)
		}
		if slices.Contains(rec.prompts(), "delete the staging database") {
			t.Errorf("a removed user's prompt ran: %q", rec.prompts())
		}
		if q, err := h.store.AllPendingPrompts(); err != nil || len(q) != 0 {
			t.Errorf("queue after the refusal: %+v, %v", q, err)
		}
	})
}

// The same holds for a group taken off allowed_chat_ids.
func TestQueuedPromptOfRemovedGroupIsNotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recordingScript{}
		g := tgtest.Supergroup(-100555, "team")
		h := newHarness(t, rec.run, func(c *telegram.Config) { c.AllowedChats = []int64{g.ID} })
		h.tg.AddChat(g)
		bot := "@" + h.tg.Bot().Username + " "
		h.tg.SendMessage(h.user, g, bot+"hold")
		h.awaitText(g.ID, "working")
		queued := h.tg.SendMessage(h.user, g, bot+"deploy")
		h.awaitText(g.ID, "Queued")
		h.stop()

		h.start(func(c *telegram.Config) { c.AllowedChats = []int64{-100999} })
		note := h.awaitText(g.ID, "Not run: this chat is no longer allowed to use this bot")
		if note.ReplyTo != queued {
			t.Errorf("the note replies to %d, want %d", note.ReplyTo, queued)
		}
		if slices.Contains(rec.prompts(), "deploy") {
			t.Errorf("a prompt of a removed group ran: %q", rec.prompts())
		}
		if q, err := h.store.AllPendingPrompts(); err != nil || len(q) != 0 {
			t.Errorf("queue after the refusal: %+v, %v", q, err)
		}
	})
}

// A stored prompt whose sender is unknown (user id 0) cannot be checked
// against the allowlist: it is refused the same way, never run.
func TestQueuedPromptWithoutSenderIsNotRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recordingScript{}
		h := newHarness(t, rec.run)
		msgID := h.say("/status") // a message Telegram knows, for the note to reply to
		h.awaitText(h.dm.ID, "Model")
		h.stop()
		key := strconv.FormatInt(h.dm.ID, 10)
		p := &prefs.Prompt{UpdateID: 90001, ChatID: h.dm.ID, MessageID: msgID, Text: "from nowhere", Date: time.Now()}
		if _, _, err := h.store.AcceptUpdate(90001, key, p); err != nil {
			t.Fatal(err)
		}
		h.start()
		h.awaitText(h.dm.ID, "Not run: you are no longer allowed to use this bot")
		if len(rec.prompts()) != 0 {
			t.Errorf("a prompt without a sender ran: %q", rec.prompts())
		}
		if q, err := h.store.AllPendingPrompts(); err != nil || len(q) != 0 {
			t.Errorf("queue after the refusal: %+v, %v", q, err)
		}
	})
}
