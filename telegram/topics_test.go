package telegram_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// A topic per project in the private chat: /topic opens one, and its
// messages are a session of their own in the project's directory.
func TestTopicOpensASessionOfItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := resolved(t, t.TempDir())
		api := filepath.Join(root, "api")
		if err := os.Mkdir(api, 0o700); err != nil {
			t.Fatal(err)
		}
		h := newHarnessPre(t, echoScript, func(tg *tgtest.Server) { tg.SetPrivateTopics(true) },
			func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{root} })
		h.say("/topic api")
		h.awaitText(h.dm.ID, "Opened the topic api, working in "+api)
		var thread int
		for id, name := range h.tg.Topics(h.dm.ID) {
			if name == "api" {
				thread = id
			}
		}
		if thread == 0 {
			t.Fatalf("no topic named api: %v", h.tg.Topics(h.dm.ID))
		}
		welcome := h.awaitText(h.dm.ID, "This topic works in "+api)
		if welcome.ThreadID != thread {
			t.Errorf("the welcome is in thread %d, want the topic %d", welcome.ThreadID, thread)
		}

		h.say("in the topic", tgtest.InThread(thread))
		answer := h.awaitText(h.dm.ID, "Answer: in the topic")
		h.say("in the chat")
		h.awaitText(h.dm.ID, "Answer: in the chat")
		if answer.ThreadID != thread {
			t.Errorf("the topic's answer went to thread %d", answer.ThreadID)
		}
		starts := h.eng.starts()
		if len(starts) != 2 {
			t.Fatalf("%d sessions started, want one per topic and chat", len(starts))
		}
		topicKey := strconv.FormatInt(h.dm.ID, 10) + ":" + strconv.Itoa(thread)
		for _, s := range starts {
			switch s.SessionKey {
			case topicKey:
				if s.WorkDir != api {
					t.Errorf("the topic's session works in %q, want %q", s.WorkDir, api)
				}
			case strconv.FormatInt(h.dm.ID, 10):
				if s.WorkDir == api {
					t.Errorf("the chat's session moved to the topic's directory")
				}
			default:
				t.Errorf("a session with key %q", s.SessionKey)
			}
		}
	})
}

// Where the bot has no topics in private chats, /topic says so and the
// chat works as before.
func TestTopicWithoutTopics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.say("/topic api")
		h.awaitText(h.dm.ID, "Topics are not available in this chat, so it stays one session")
		// Telegram's own refusal is shown too.
		h2 := newHarnessPre(t, echoScript, func(tg *tgtest.Server) {
			tg.SetPrivateTopics(true)
			tg.FailNext("createForumTopic", 1, tgtest.Failure{Code: 400, Description: "Bad Request: TOPICS_DISABLED"})
		})
		h2.say("/topic api")
		m := h2.awaitText(h2.dm.ID, "Topics are not available")
		if !strings.Contains(m.Text, "Telegram said:") || !strings.Contains(m.Text, "TOPICS_DISABLED") {
			t.Errorf("refusal: %q", m.Text)
		}
		h2.say("still works")
		h2.awaitText(h2.dm.ID, "Answer: still works")
	})
}

// After /cwd in a private chat with topics, a button opens a topic for the
// project; pressed once, it is spent.
func TestTopicButtonAfterCwd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := resolved(t, t.TempDir())
		web := filepath.Join(root, "web")
		if err := os.Mkdir(web, 0o700); err != nil {
			t.Fatal(err)
		}
		h := newHarnessPre(t, echoScript, func(tg *tgtest.Server) { tg.SetPrivateTopics(true) },
			func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{root} })
		h.say("/cwd web")
		answer := h.awaitPrompt(h.dm.ID, "Open a topic for web", web)
		if st := buttonStyles(answer); st["Open a topic for web"] != "primary" {
			t.Errorf("styles %v", st)
		}
		if got := h.toast(h.press(h.user, h.dm, answer, "Open a topic for web")); !strings.HasPrefix(got, "Opened the topic web") {
			t.Errorf("toast %q", got)
		}
		welcome := h.awaitText(h.dm.ID, "This topic works in "+web)
		if h.tg.Topics(h.dm.ID)[welcome.ThreadID] != "web" {
			t.Errorf("topics %v, welcome in %d", h.tg.Topics(h.dm.ID), welcome.ThreadID)
		}
		if got := h.toast(h.press(h.user, h.dm, answer, "Open a topic for web")); got != "This button has expired" {
			t.Errorf("a second press: %q", got)
		}
		// Telegram refusing a topic says so once, and the chat gets no more
		// buttons that would fail the same way.
		h.tg.FailNext("createForumTopic", 1, tgtest.Failure{Code: 400, Description: "Bad Request: TOPICS_DISABLED"})
		h.say("/cwd " + root)
		h.say("/cwd web")
		again := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			_, ok := findButton(m, "Open a topic for web")
			return ok && m.ID != answer.ID
		})
		if got := h.toast(h.press(h.user, h.dm, again, "Open a topic for web")); got != "Telegram refused the topic: see the message" {
			t.Errorf("refused press: %q", got)
		}
		h.awaitText(h.dm.ID, "TOPICS_DISABLED")
		h.say("/cwd " + root)
		h.say("/cwd web")
		h.tg.Await(wait, "a third /cwd answer", func() bool { return countText(h, "Your next message starts a fresh Claude session there") >= 5 })
		synctest.Wait()
		for _, m := range h.tg.Messages(h.dm.ID) {
			if _, ok := findButton(m, "Open a topic"); ok && m.ID != answer.ID && m.ID != again.ID {
				t.Errorf("a topic button after Telegram refused one: %q", m.Text)
			}
		}
		// Without topics, /cwd has no button.
		h2 := newHarnessPre(t, echoScript, nil, func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{root} })
		h2.say("/cwd web")
		if m := h2.awaitText(h2.dm.ID, web); len(m.Keyboard) != 0 {
			t.Errorf("a topic button without topics: %v", m.Keyboard)
		}
	})
}

// A topic opened from a chat on another machine works on that machine.
func TestTopicKeepsTheChatsMachine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		box := &fakeEngine{script: echoScript}
		h := newHarnessPre(t, echoScript, func(tg *tgtest.Server) { tg.SetPrivateTopics(true) },
			withBox(t, box, func(context.Context) (string, error) { return "9.9.9 (Claude Code)", nil }))
		h.say("/host box")
		h.awaitText(h.dm.ID, "now works on box")
		h.say("/topic notes")
		h.awaitText(h.dm.ID, "Opened the topic notes, working in /box/code")
		var thread int
		for id, name := range h.tg.Topics(h.dm.ID) {
			if name == "notes" {
				thread = id
			}
		}
		h.say("in the topic", tgtest.InThread(thread))
		h.awaitText(h.dm.ID, "Answer: in the topic")
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("the topic started %d sessions on the local machine", n)
		}
		if s := box.starts(); len(s) != 1 || s[0].WorkDir != "/box/code" || !strings.HasSuffix(s[0].SessionKey, ":"+strconv.Itoa(thread)) {
			t.Errorf("box starts = %+v", s)
		}
	})
}
