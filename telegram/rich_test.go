package telegram_test

import (
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/tgtest"
)

// Rich answers: an answer with a table (or a task list, a heading, a long
// code block) arrives as one rich message; refused, as today's HTML.

const tableAnswer = "Here are the results:\n\n| test | result |\n|---|---|\n| `parse` | **ok** |\n| render | failed |\n\nOne failure."

// answers completes every prompt with answer.
func answers(answer string) enginetest.Script {
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		tr.Complete(answer)
	}
}

func richCalls(h *harness) int { return len(h.tg.CallsTo("sendRichMessage")) }

func TestTableAnswerIsOneRichMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, answers(tableAnswer))
		id := h.say("run the tests")
		m := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ParseMode == "rich" })
		if m.ReplyTo != id {
			t.Errorf("the answer replies to %d, want the prompt %d", m.ReplyTo, id)
		}
		for _, want := range []string{"<table><tr><th>test</th><th>result</th></tr>", "<td><code>parse</code></td><td><b>ok</b></td>",
			"<p>One failure.</p>", "<p><i>"} {
			if !strings.Contains(m.Source, want) {
				t.Errorf("the rich answer lacks %q:\n%s", want, m.Source)
			}
		}
		synctest.Wait()
		for _, c := range h.tg.CallsTo("sendMessage") {
			if strings.Contains(c.Params["text"], "One failure") {
				t.Errorf("the answer also went as a plain message: %q", c.Params["text"])
			}
		}
	})
}

// A server without rich messages (older than Bot API 10.1) gets today's
// HTML answer, and is not asked again in that chat.
func TestRichRefusedFallsBackToHTML(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, answers(tableAnswer))
		h.tg.RefuseRich()
		h.say("run the tests")
		m := h.awaitText(h.dm.ID, "One failure.")
		if m.ParseMode != "HTML" || !strings.Contains(m.Source, "<pre>") {
			t.Errorf("the fallback is not today's HTML (table as monospace): %s %q", m.ParseMode, m.Source)
		}
		if n := richCalls(h); n != 1 {
			t.Errorf("%d rich calls, want the one refused", n)
		}
		h.say("again")
		h.tg.Await(wait, "the second answer", func() bool { return countText(h, "One failure.") == 2 })
		synctest.Wait()
		if n := richCalls(h); n != 1 {
			t.Errorf("the chat was asked for a rich message again after Telegram said it has none (%d calls)", n)
		}
	})
}

// A rich message refused for what it holds (a limit, a block) sends that
// answer the plain way; the next rich answer is tried as rich again.
func TestRichRefusedOnceTriesAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, answers(tableAnswer))
		stop := h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "sendRichMessage" },
			tgtest.Failure{Code: 400, Description: "Bad Request: RICH_MESSAGE_INVALID"})
		h.say("run the tests")
		if m := h.awaitText(h.dm.ID, "One failure."); m.ParseMode != "HTML" {
			t.Errorf("fallback parse mode %q", m.ParseMode)
		}
		stop()
		h.say("again")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ParseMode == "rich" })
	})
}

func TestPlainAnswersAreNotRich(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, answers("Just **one** line, `code` and a list:\n\n- a\n- b"))
		h.say("hi")
		h.awaitText(h.dm.ID, "one line")
		// [progress] rich = false: even a table goes as HTML.
		h2 := newHarness(t, answers(tableAnswer), func(c *telegram.Config) { c.PlainAnswers = true })
		h2.say("hi")
		h2.awaitText(h2.dm.ID, "One failure.")
		synctest.Wait()
		if richCalls(h) != 0 || richCalls(h2) != 0 {
			t.Errorf("rich calls: %d for a plain answer, %d with rich = false", richCalls(h), richCalls(h2))
		}
	})
}

// While Claude writes a table, the draft is a rich one; before the table
// it was plain; the answer is the rich message.
func TestRichDraftWhileWriting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("Checking the tests", "…\n\n| test | result |\n|---|---|\n| parse | ok |", "\n\nDone."))
		h.say("run the tests")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ParseMode == "rich" && strings.Contains(m.Text, "Done.") })
		var plain, rich bool
		for _, d := range h.tg.Drafts(h.dm.ID) {
			switch {
			case d.Rich && strings.Contains(d.Source, "<table>") && strings.Contains(d.Text, "parse | ok"):
				rich = true
			case !d.Rich && strings.Contains(d.Text, "Checking the tests"):
				plain = true
			}
		}
		if !plain || !rich {
			t.Errorf("drafts: plain before the table %v, rich with it %v: %+v", plain, rich, h.tg.Drafts(h.dm.ID))
		}
	})
}

// A refused rich draft leaves the turn's drafts plain: the text still shows.
func TestRichDraftRefusedGoesPlain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("| a | b |\n|---|---|\n| 1 | 2 |", "\n\nmore", "\n\nDone."))
		h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "sendRichMessageDraft" },
			tgtest.Failure{Code: 400, Description: "Bad Request: RICH_MESSAGE_INVALID"})
		h.say("go")
		h.awaitAnswer(h.dm.ID, "Done.")
		if n := len(h.tg.CallsTo("sendRichMessageDraft")); n != 1 {
			t.Errorf("%d rich drafts tried, want 1 then plain ones", n)
		}
		plain := false
		for _, d := range h.tg.Drafts(h.dm.ID) {
			plain = plain || (!d.Rich && strings.Contains(d.Text, "more"))
		}
		if !plain {
			t.Errorf("no plain draft after the refusal: %+v", h.tg.Drafts(h.dm.ID))
		}
	})
}

// A /diff too long for a message but within a rich message's limits comes
// as one rich message, each file's diff folded; no .diff document.
func TestDiffFoldsInARichMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		repo := filepath.Join(resolved(t, t.TempDir()), "repo")
		gitRepo(t, repo)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = repo })
		writeFile(t, filepath.Join(repo, "a.txt"), "one\nthree\n")
		writeFile(t, filepath.Join(repo, "mid <b>.txt"), strings.Repeat("a line of the middle-sized file\n", 200))
		h.say("/diff")
		m := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ParseMode == "rich" })
		for _, want := range []string{"<p>📝 <b>Uncommitted changes</b>", "<details><summary>a.txt · ",
			"<details><summary>mid &lt;b&gt;.txt · 206 lines</summary><pre><code class=\"language-diff\">"} {
			if !strings.Contains(m.Source, want) {
				t.Errorf("the rich /diff lacks %q:\n%.600s", want, m.Source)
			}
		}
		synctest.Wait()
		if docs := h.tg.Documents(h.dm.ID); len(docs) != 0 {
			t.Errorf("a .diff document came too: %+v", docs)
		}
	})
}

// Telegram refusing every rich message in a chat (a dialect it does not
// take) stops the bot asking there after three in a row.
func TestRichRefusedThriceStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, answers(tableAnswer), func(c *telegram.Config) { c.Stream = "off" })
		h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "sendRichMessage" },
			tgtest.Failure{Code: 400, Description: "Bad Request: RICH_MESSAGE_INVALID"})
		for i := 1; i <= 4; i++ {
			h.say("again")
			h.tg.Await(wait, "the answer", func() bool { return countText(h, "One failure.") == i })
		}
		if n := richCalls(h); n != 3 {
			t.Errorf("%d rich calls, want 3 and then plain answers only", n)
		}
	})
}

// A rich answer that waits for the chat's message window shows at once as
// a rich draft, like a plain one (TestWaitingAnswerShowsAsDraft).
func TestWaitingRichAnswerShowsAsRichDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, windowFiller(tableAnswer), func(c *telegram.Config) { c.Outbox = outbox.Options{} })
		h.say("first")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return strings.Contains(m.Text, "$") })
		h.say("second")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ParseMode == "rich" })
		calls := h.tg.Calls()
		draft := callIndex(calls, func(c tgtest.Call) bool {
			return c.Method == "sendRichMessageDraft" && strings.Contains(c.Params["rich_message"], "One failure.")
		})
		msg := callIndex(calls, func(c tgtest.Call) bool { return c.Method == "sendRichMessage" })
		if draft < 0 || msg < draft {
			t.Fatalf("want the rich draft before the rich message: draft %d, message %d; calls %v", draft, msg, methods(calls))
		}
	})
}
