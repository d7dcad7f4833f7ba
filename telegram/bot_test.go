package telegram_test

import (
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

func TestMessageProgressFinal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("fake-model")
			tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "go test ./..."})
			<-release
			tr.Emit(engine.ActionCompleted{ToolUseID: "t1", OK: true})
			tr.Complete("All **green**: `ok`")
		})
		msgID := h.say("run the tests")
		// The progress message arrives before Claude's first event finishes the turn.
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == msgID })
		if len(prog.Keyboard) == 0 || !strings.Contains(prog.Keyboard[0][0].Text, "Cancel") || prog.Keyboard[0][0].Style != "danger" {
			t.Errorf("progress message should carry a red cancel button: %+v", prog.Keyboard)
		}
		h.tg.Await(wait, "progress shows the running action", func() bool {
			m, _ := h.tg.Message(h.dm.ID, prog.ID)
			return strings.Contains(m.Text, "go test ./...")
		})
		close(release)
		final := h.awaitText(h.dm.ID, "All green")
		if final.ReplyTo != msgID || final.ID == prog.ID {
			t.Errorf("final must be a new message replying to the user: %+v", final)
		}
		if !strings.Contains(final.Source, "<b>green</b>") || !strings.Contains(final.Source, "<code>ok</code>") {
			t.Errorf("final not rendered as HTML: %q", final.Source)
		}
		if !strings.Contains(final.Text, "$0.01") {
			t.Errorf("final footer lacks the cost: %q", final.Text)
		}
		h.tg.Await(wait, "progress reduced to a summary without buttons", func() bool {
			m, _ := h.tg.Message(h.dm.ID, prog.ID)
			return len(m.Keyboard) == 0 && !strings.Contains(m.Text, "go test ./...")
		})
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times", n)
		}
	})
}

func TestTwoChatsInParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		started := 0
		both := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			mu.Lock()
			started++
			if started == 2 {
				close(both)
			}
			mu.Unlock()
			select {
			case <-both: // only possible if the other chat runs at the same time
				tr.Complete("parallel " + tr.Prompt)
			case <-time.After(5 * time.Second):
				tr.Complete("serial " + tr.Prompt)
			}
		}, func(c *telegram.Config) { c.AllowedUsers = append(c.AllowedUsers, 777) })
		other := tgtest.User{ID: 777, FirstName: "Bob"}
		h2 := tgtest.PrivateChat(other)
		h.say("one")
		h.tg.SendMessage(other, h2, "two")
		_ = h2
		h.awaitText(h.dm.ID, "parallel one")
		h.awaitText(h2.ID, "parallel two")
	})
}

func TestQueuedDuringTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.N == 1 {
				<-release
			}
			tr.Complete("done " + tr.Prompt)
		})
		h.say("first")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return strings.Contains(m.Text, "working") || strings.Contains(m.Text, "starting")
		})
		second := h.say("second")
		note := h.awaitText(h.dm.ID, "Queued")
		if note.ReplyTo != second {
			t.Errorf("queued notice should reply to the queued message")
		}
		close(release)
		h.awaitText(h.dm.ID, "done first")
		h.awaitText(h.dm.ID, "done second")
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("the queued message must run in the same session; starts = %d", n)
		}
	})
}

func TestCancelThenNewMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "long" {
				<-tr.Interrupted()
				tr.Aborted()
				return
			}
			tr.Complete("short answer")
		})
		h.say("long")
		h.awaitText(h.dm.ID, "working")
		h.say("/cancel")
		h.awaitText(h.dm.ID, "Cancelled")
		h.say("quick")
		h.awaitText(h.dm.ID, "short answer")
	})
}

func TestCancelButton(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, untilCancelled)
		id := h.say("long")
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id && len(m.Keyboard) > 0 })
		cq := h.tg.PressButton(h.user, h.dm, prog.ID, prog.Keyboard[0][0].CallbackData)
		h.awaitText(h.dm.ID, "Cancelled")
		// The toast and the final go out independently: wait for the toast.
		var a tgtest.CallbackAnswer
		h.tg.Await(wait, "the cancel toast", func() bool {
			var ok bool
			a, ok = h.tg.CallbackAnswer(cq)
			return ok
		})
		if !strings.Contains(a.Text, "Cancel") {
			t.Errorf("toast = %+v", a)
		}
	})
}

func TestFinalSurvives429(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		stop := h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "Answer")
		}, tgtest.TooManyRequests(1))
		h.say("hello")
		h.tg.Await(wait, "a 429 on the final", func() bool {
			for _, c := range h.tg.CallsTo("sendMessage") {
				if c.Status == 429 {
					return true
				}
			}
			return false
		})
		stop()
		h.awaitText(h.dm.ID, "Answer: hello")
		synctest.Wait() // the bot has done all it will do without a timer: a duplicate would be here
		n := 0
		for _, txt := range h.messages(h.dm.ID) {
			if strings.Contains(txt, "Answer: hello") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("final delivered %d times", n)
		}
	})
}

func TestUnauthorizedUser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		stranger := tgtest.User{ID: 999001, FirstName: "Eve"}
		chat := tgtest.PrivateChat(stranger)
		h.tg.SendMessage(stranger, chat, "rm -rf /")
		m := h.awaitText(chat.ID, "999001")
		if !strings.Contains(m.Text, "allowed_user_ids") {
			t.Errorf("refusal = %q", m.Text)
		}
		h.tg.SendMessage(stranger, chat, "again")
		synctest.Wait() // the bot has handled "again" and is idle
		if n := len(h.tg.Messages(chat.ID)); n != 1 {
			t.Errorf("a stranger gets one refusal, got %d messages", n)
		}
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("claude started %d times for a stranger", n)
		}
	})
}

func TestGroupMentionRules(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		g := tgtest.Supergroup(-100123, "team")
		h.tg.AddChat(g)
		botName := h.tg.Bot().Username
		h.tg.SendMessage(h.user, g, "just chatting")
		h.tg.SendMessage(h.user, g, "/status@someotherbot")
		h.tg.SendMessage(h.user, g, "@"+botName+" list files")
		h.awaitText(g.ID, "Answer: list files")
		// A reply to the bot's message counts as addressing it.
		last := h.tg.Messages(g.ID)
		h.tg.SendMessage(h.user, g, "and now?", tgtest.ReplyTo(last[len(last)-1].ID))
		h.awaitText(g.ID, "Answer: and now?")
		for _, txt := range h.messages(g.ID) {
			if strings.Contains(txt, "just chatting") {
				t.Errorf("unaddressed group message was run: %q", txt)
			}
		}
		// A stranger in the group is ignored silently.
		before := len(h.tg.Messages(g.ID))
		h.tg.SendMessage(tgtest.User{ID: 31337, FirstName: "Mallory"}, g, "@"+botName+" do it")
		synctest.Wait() // the bot has handled it and is idle
		if after := len(h.tg.Messages(g.ID)); after != before {
			t.Errorf("stranger in a group got an answer")
		}
	})
}

func TestForumTopicsAreSeparateSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		f := tgtest.Forum(-100999, "forum")
		h.tg.AddChat(f)
		h.tg.AddTopic(f.ID, 11, "a")
		h.tg.AddTopic(f.ID, 22, "b")
		bot := "@" + h.tg.Bot().Username
		h.tg.SendMessage(h.user, f, bot+" in a", tgtest.InThread(11))
		h.tg.SendMessage(h.user, f, bot+" in b", tgtest.InThread(22))
		ma := h.awaitText(f.ID, "Answer: in a")
		mb := h.awaitText(f.ID, "Answer: in b")
		if ma.ThreadID != 11 || mb.ThreadID != 22 {
			t.Errorf("answers in the wrong topics: %d %d", ma.ThreadID, mb.ThreadID)
		}
		keys := map[string]bool{}
		for _, s := range h.eng.starts() {
			keys[s.SessionKey] = true
		}
		if len(keys) != 2 {
			t.Errorf("session keys = %v", keys)
		}
	})
}

func TestNonTextAndCommands(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.tg.AddUpdate(map[string]any{"message": map[string]any{"message_id": 5000, "date": time.Now().Unix(),
			"chat": map[string]any{"id": h.dm.ID, "type": "private"}, "from": map[string]any{"id": h.user.ID, "first_name": "Ada"},
			"voice": map[string]any{"file_id": "x", "file_unique_id": "y", "duration": 3}}})
		h.awaitText(h.dm.ID, "I can't listen to voice messages yet")
		h.tg.AddUpdate(map[string]any{"message": map[string]any{"message_id": 5001, "date": time.Now().Unix(),
			"chat": map[string]any{"id": h.dm.ID, "type": "private"}, "from": map[string]any{"id": h.user.ID, "first_name": "Ada"},
			"sticker": map[string]any{"file_id": "s", "file_unique_id": "t", "type": "regular", "width": 512, "height": 512}}})
		h.awaitText(h.dm.ID, "I can pass text, photos and files to Claude, but not stickers.")
		h.say("/status")
		h.awaitText(h.dm.ID, "Model")
		h.say("/help")
		h.awaitText(h.dm.ID, "/cancel")
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("commands must not start claude, starts = %d", n)
		}
		cmds := h.tg.Commands()
		if len(cmds) < 5 {
			t.Errorf("setMyCommands registered %d commands", len(cmds))
		}
		if got := h.tg.AllowedUpdates(); strings.Join(got, ",") != "message,edited_message,callback_query,stopped_message_generation" {
			t.Errorf("allowed_updates = %v", got)
		}
	})
}

func TestCrashIsReportedAndRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "boom" {
				tr.Crash(3, "panic: token 7000000001:AAtgtest-fake-token leaked")
				return
			}
			tr.Complete("fine again")
		})
		h.say("boom")
		m := h.awaitText(h.dm.ID, "exited")
		if strings.Contains(m.Text, h.tg.Token()) {
			t.Errorf("the bot token leaked into a message: %q", m.Text)
		}
		h.say("next")
		h.awaitText(h.dm.ID, "fine again")
		if n := len(h.eng.starts()); n != 2 {
			t.Errorf("starts = %d, want a fresh start after the crash", n)
		}
		if s := h.eng.starts()[1]; s.Resume == "" {
			t.Errorf("the restart should resume the stored session: %+v", s)
		}
	})
}

func TestSecretsNeverReachChats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const apiKey = "sk-ant-api03-SECRETSECRET"
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Crash(1, "auth failed for key "+apiKey+" via bot "+"7000000001:AAtgtest-fake-token")
		}, func(c *telegram.Config) { c.Secrets = []string{apiKey} })
		h.say("go")
		m := h.awaitText(h.dm.ID, "auth failed")
		if strings.Contains(m.Text, apiKey) || strings.Contains(m.Text, h.tg.Token()) {
			t.Errorf("a secret reached the chat: %q", m.Text)
		}
		if !strings.Contains(m.Text, "[redacted]") {
			t.Errorf("expected the redaction marker: %q", m.Text)
		}
	})
}

func TestLeftoverWebhookIsRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarnessPre(t, echoScript, func(tg *tgtest.Server) { tg.SetWebhook("https://old.example.invalid/hook") })
		h.say("still there?")
		h.awaitText(h.dm.ID, "Answer: still there?")
		if url := h.tg.Webhook(); url != "" {
			t.Errorf("webhook still set: %q", url)
		}
		for _, c := range h.tg.CallsTo("deleteWebhook") {
			if c.Bool("drop_pending_updates") {
				t.Error("removing the webhook must keep pending updates")
			}
		}
	})
}
