package telegram_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/tgtest"
)

// writing is a Claude that thinks for a second, then writes its answer in
// deltas, one every 1.5 s (each gets a draft of its own), as the CLI
// streams them with --include-partial-messages, and ends with the whole
// text.
func writing(deltas ...string) enginetest.Script {
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		time.Sleep(time.Second)
		for _, d := range deltas {
			tr.Emit(engine.Text{Text: d, Partial: true})
			time.Sleep(1500 * time.Millisecond)
		}
		full := strings.Join(deltas, "")
		tr.Emit(engine.Text{Text: full})
		tr.Complete(full)
	}
}

var planDeltas = []string{"Here is **the", " plan**:\n\n```go\nfunc main() {", "\n}\n```\n\nDone."}

// awaitAnswer waits for a final answer containing want: a reply without
// buttons that is not a progress summary.
func (h *harness) awaitAnswer(chatID int64, want string) tgtest.Message {
	h.t.Helper()
	return h.tg.AwaitMessage(wait, chatID, func(m tgtest.Message) bool {
		return len(m.Keyboard) == 0 && strings.Contains(m.Text, want) && !strings.HasPrefix(m.Text, "⏳")
	})
}

// callIndex is the position of the first call satisfying pred, -1 if none.
func callIndex(calls []tgtest.Call, pred func(tgtest.Call) bool) int {
	return slices.IndexFunc(calls, pred)
}

// In a private chat the user watches Claude write: drafts with one id,
// "Thinking…" (empty) first, the text rendered like the final as it grows
// (a half-written code block included), and none after the answer.
func TestDraftsStreamTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing(planDeltas...))
		id := h.say("plan it")
		final := h.awaitAnswer(h.dm.ID, "Done.")
		drafts := h.tg.Drafts(h.dm.ID)
		if len(drafts) < 3 {
			t.Fatalf("%d drafts, want the placeholder and the text as it grows: %+v", len(drafts), drafts)
		}
		if drafts[0].Text != "" {
			t.Errorf("first draft %q, want the empty Thinking… placeholder", drafts[0].Text)
		}
		for _, d := range drafts {
			if d.ID != int64(id) {
				t.Errorf("draft id %d, want one id for the turn (%d)", d.ID, id)
			}
		}
		var sawBold, sawOpenCode bool
		for _, d := range drafts {
			for _, e := range d.Entities {
				sawBold = sawBold || e.Type == "bold" && strings.Contains(d.Text, "the plan")
				sawOpenCode = sawOpenCode || e.Type == "pre" && strings.Contains(d.Text, "func main() {") && !strings.Contains(d.Text, "Done")
			}
		}
		if !sawBold || !sawOpenCode {
			t.Errorf("drafts not rendered as the final is (bold %v, half-written code block %v): %+v", sawBold, sawOpenCode, drafts)
		}
		calls := h.tg.Calls()
		answer := callIndex(calls, func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "Done.")
		})
		for i, c := range calls {
			if c.Method == "sendMessageDraft" && i > answer {
				t.Errorf("a draft was sent after the answer: it would show the old text under it")
			}
		}
		if _, ok := h.tg.LiveDraft(h.dm.ID, 0); ok {
			t.Error("a draft still shows after the answer")
		}
		if !strings.Contains(final.Text, "Here is the plan") {
			t.Errorf("final = %q", final.Text)
		}
	})
}

// An unchanged draft is sent again while the turn runs: a client shows one
// for about 30 s.
func TestDraftRefreshedWhileTurnRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Reading the logs…", Partial: true})
			<-release
			tr.Complete("done")
		})
		h.say("go")
		for i := range 6 { // two minutes, checked every 20 s
			time.Sleep(20 * time.Second)
			if d, ok := h.tg.LiveDraft(h.dm.ID, 0); !ok || d.Text != "Reading the logs…" {
				t.Errorf("after %ds the user sees no draft (%+v, %v)", 20*(i+1), d, ok)
				break
			}
		}
		close(release)
		h.awaitText(h.dm.ID, "done")
	})
}

// A turn that ends quickly costs its answer alone: no progress message, no
// edit; the draft placeholder showed it was being worked on.
func TestQuickTurnIsOneMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			time.Sleep(400 * time.Millisecond)
			tr.Complete("**Answer:** " + tr.Prompt)
		})
		h.say("quick")
		h.awaitText(h.dm.ID, "Answer: quick")
		synctest.Wait()
		if n, e := len(h.tg.CallsTo("sendMessage")), len(h.tg.CallsTo("editMessageText")); n != 1 || e != 0 {
			t.Errorf("a quick turn sent %d messages and %d edits, want its answer alone: %q", n, e, h.messages(h.dm.ID))
		}
		if len(h.tg.Drafts(h.dm.ID)) == 0 {
			t.Error("no draft showed the turn was being worked on")
		}
	})
}

// In a group (no drafts there) the progress message shows the latest
// paragraph of the answer as it grows, rendered; "typing…" shows at most
// every 4.5 s while the turn runs.
func TestGroupStreamsInProgressMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("Intro line.\n\nThe **fix** is", " in `decode.go`, then tests.", "\n\nAll green."))
		g := tgtest.Supergroup(-100555, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" fix it")
		prog := h.tg.AwaitMessage(wait, g.ID, func(m tgtest.Message) bool {
			return len(m.Keyboard) > 0 && strings.Contains(m.Text, "The fix is in decode.go")
		})
		if strings.Contains(prog.Text, "Intro line") || !slices.ContainsFunc(prog.Entities, func(e tgtest.Entity) bool { return e.Type == "code" }) {
			t.Errorf("progress shows %q (entities %+v), want the latest paragraph, rendered", prog.Text, prog.Entities)
		}
		h.awaitAnswer(g.ID, "All green.")
		if n := len(h.tg.Drafts(g.ID)); n != 0 {
			t.Errorf("%d drafts in a group", n)
		}
		var typing []time.Time
		for _, c := range h.tg.CallsTo("sendChatAction") {
			if c.Int64("chat_id") == g.ID && c.Params["action"] == "typing" {
				typing = append(typing, c.Time)
			}
		}
		if len(typing) == 0 {
			t.Fatal("no typing indicator while the turn ran")
		}
		for i := 1; i < len(typing); i++ {
			if d := typing[i].Sub(typing[i-1]); d < 4500*time.Millisecond {
				t.Errorf("typing sent %v after the previous one", d)
			}
		}
	})
}

// Where Telegram refuses drafts, the chat streams by edits from then on,
// without losing the text; it tries no draft again.
func TestDraftRefusedFallsBackToEdits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("First **words**", " and more words."))
		h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "sendMessageDraft" },
			tgtest.Failure{Code: 404, Description: "Not Found"})
		h.say("one")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return len(m.Keyboard) > 0 && strings.Contains(m.Text, "First words and more")
		})
		h.awaitAnswer(h.dm.ID, "First words and more words.")
		tried := len(h.tg.CallsTo("sendMessageDraft"))
		h.say("two")
		h.tg.Await(wait, "the second answer", func() bool { return len(h.tg.Messages(h.dm.ID)) >= 4 })
		synctest.Wait()
		if tried != 1 || len(h.tg.CallsTo("sendMessageDraft")) != 1 {
			t.Errorf("drafts tried %d times in the first turn, %d in all: want one refusal, then edits",
				tried, len(h.tg.CallsTo("sendMessageDraft")))
		}
	})
}

// /stream off: no draft and no partial text; the process is not asked for
// partial messages.
func TestStreamOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("Some ", "words."))
		h.say("/stream off")
		h.awaitText(h.dm.ID, "Streaming: off (chat setting)")
		h.say("go")
		h.awaitAnswer(h.dm.ID, "Some words.")
		if n := len(h.tg.Drafts(h.dm.ID)); n != 0 {
			t.Errorf("%d drafts with streaming off", n)
		}
		if specs := h.eng.starts(); len(specs) != 1 || specs[0].Partial {
			t.Errorf("specs %+v: partial messages asked for with streaming off", specs)
		}
		h2 := newHarness(t, writing("x"))
		h2.say("go")
		h2.awaitText(h2.dm.ID, "x")
		if specs := h2.eng.starts(); len(specs) != 1 || !specs[0].Partial {
			t.Errorf("specs %+v: the default (drafts) must ask for partial messages", specs)
		}
	})
}

// A secret split across deltas never shows in a draft, not even its start.
func TestDraftsAreRedacted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const secret = "sk-live-0123456789abcdef"
		h := newHarness(t, writing("The key is sk-li", "ve-0123456", "789abcdef, keep it."), func(c *telegram.Config) {
			c.Secrets = []string{secret}
		})
		h.say("leak it")
		h.awaitAnswer(h.dm.ID, "keep it.")
		saw := false
		for _, d := range h.tg.Drafts(h.dm.ID) {
			if strings.Contains(d.Source, "sk-li") || strings.Contains(d.Source, "0123456") {
				t.Errorf("a draft shows part of the secret: %q", d.Source)
			}
			saw = saw || strings.Contains(d.Text, "The key is [redacted], keep it.")
		}
		if !saw {
			t.Errorf("no draft showed the redacted text: %+v", h.tg.Drafts(h.dm.ID))
		}
	})
}

// The prompt reaches Claude at once, not after Telegram took the progress
// message; the turn is recorded as started before Claude sees it (against
// the user's message), and moves to the progress message once that exists.
func TestPromptGoesToClaudeAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var h *harness
		got := make(chan time.Duration, 1)
		var recorded []prefs.LiveMessage
		var sent time.Time
		h = newHarness(t, func(tr *enginetest.Turn) {
			recorded, _ = h.store.ListLive()
			got <- time.Since(sent)
			tr.Start("m")
			time.Sleep(3 * time.Second)
			tr.Complete("finished")
		})
		// Telegram is in trouble: it takes no progress message for now.
		recovered := h.tg.FailWhen(func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["reply_markup"], `"c:`)
		}, tgtest.Failure{Code: 502})
		sent = time.Now()
		id := h.say("now")
		if d := <-got; d > 0 {
			t.Errorf("Claude got the prompt %v after it was sent, want at once", d)
		}
		if len(recorded) != 1 || recorded[0].Kind != prefs.LiveTurn || recorded[0].MessageID != id {
			t.Errorf("live records when Claude got the prompt: %+v, want the turn against message %d", recorded, id)
		}
		recovered()
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return len(m.Keyboard) > 0 })
		h.tg.Await(wait, "the record moved to the progress message", func() bool {
			l, _ := h.store.ListLive()
			return len(l) == 1 && l[0].Kind == prefs.LiveProgress && l[0].MessageID == prog.ID
		})
		h.awaitAnswer(h.dm.ID, "finished")
	})
}

// A crash before the turn's progress message existed leaves a record
// against the user's message: after the restart a new message says the
// turn was interrupted, in reply to it.
func TestRestartBeforeProgressMessageReplies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		id := h.say("doomed")
		h.awaitText(h.dm.ID, "Answer: doomed")
		h.stop()
		if err := h.store.AddLive(prefs.LiveMessage{Kind: prefs.LiveTurn, ChatID: h.dm.ID, MessageID: id,
			SessionKey: strconv.FormatInt(h.dm.ID, 10)}); err != nil {
			t.Fatal(err)
		}
		h.start()
		m := h.awaitText(h.dm.ID, "Interrupted by restart")
		if m.ReplyTo != id {
			t.Errorf("the notice replies to %d, want the user's message %d", m.ReplyTo, id)
		}
		h.tg.Await(wait, "the record forgotten", func() bool { l, _ := h.store.ListLive(); return len(l) == 0 })
	})
}

// Pressing Approve sends the answer at once: the outcome edit of the
// prompt ("Approved by …") is housekeeping and waits for the chat's
// budget, not the answer.
func TestAnswerDoesNotWaitForPromptOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "r1", "Bash", map[string]any{"command": "make release"})), func(c *telegram.Config) {
			c.Outbox = outbox.Options{} // Telegram's pacing: 3 calls in 3 s per chat
		})
		h.say("release")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make release")
		time.Sleep(500 * time.Millisecond)
		pressed := time.Now()
		h.press(h.user, h.dm, prompt, "Approve")
		h.awaitText(h.dm.ID, "tool allowed")
		if d := time.Since(pressed); d > 100*time.Millisecond {
			t.Errorf("the answer came %v after the press, want at once", d)
		}
		h.awaitResolved(h.dm.ID, prompt.ID, "Approved")
	})
}

// A Bash command shows in the progress line as Claude writes it, on one
// line that the complete call then finishes.
func TestCommandShowsAsItIsWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		step := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			time.Sleep(2 * time.Second)
			tr.Emit(engine.ActionStarted{ToolUseID: "b1", Tool: "Bash", Kind: "command", Title: "go te", Partial: true})
			<-step
			tr.Emit(engine.ActionStarted{ToolUseID: "b1", Tool: "Bash", Kind: "command", Title: "go test ./runner/..."})
			<-step
			tr.Emit(engine.ActionCompleted{ToolUseID: "b1", OK: true})
			tr.Complete("ok")
		})
		h.say("test it")
		prog := h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
			return len(m.Keyboard) > 0 && strings.Contains(m.Text, "▶ 💻 go te")
		})
		step <- struct{}{}
		h.tg.Await(wait, "the whole command", func() bool {
			m, _ := h.tg.Message(h.dm.ID, prog.ID)
			return strings.Contains(m.Text, "▶ 💻 go test ./runner/...") && !strings.Contains(m.Text, "go te\n")
		})
		m, _ := h.tg.Message(h.dm.ID, prog.ID)
		if strings.Count(m.Text, "💻") != 1 || strings.Contains(m.Text, "steps") {
			t.Errorf("the command was listed twice: %q", m.Text)
		}
		step <- struct{}{}
		h.awaitAnswer(h.dm.ID, "ok")
	})
}

// A message sent right after the answer arrived is not "queued": the turn
// is over for the user, though the bot is still tidying it up.
func TestMessageAfterAnswerIsNotQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		// A draft that never comes back keeps the finished turn closing for
		// a few seconds (it waits for the draft, boundedly).
		h.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "sendMessageDraft" }, tgtest.Failure{Hang: true})
		h.say("first")
		h.awaitAnswer(h.dm.ID, "Answer: first")
		h.say("second")
		h.awaitAnswer(h.dm.ID, "Answer: second")
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "Queued") {
				t.Errorf("the second message was reported queued behind an answered turn: %q", m)
			}
		}
	})
}

// Claude's first words show at once: the pause between drafts does not
// count the "Thinking…" placeholder before them.
func TestFirstTextShowsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		wrote := make(chan time.Time, 1)
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			time.Sleep(100 * time.Millisecond)
			wrote <- time.Now()
			tr.Emit(engine.Text{Text: "Hi", Partial: true})
			time.Sleep(2 * time.Second)
			tr.Complete("Hi there")
		})
		h.say("hello")
		at := <-wrote
		d := h.tg.AwaitCall(wait, "sendMessageDraft", func(c tgtest.Call) bool { return c.Params["text"] == "Hi" })
		if lag := d.Time.Sub(at); lag > 0 {
			t.Errorf("the first text showed %v after Claude wrote it, want at once", lag)
		}
		h.awaitAnswer(h.dm.ID, "Hi there")
	})
}

// While a draft shows Claude writing, the progress message keeps still:
// the answer right after the text finds the chat's window free.
func TestProgressKeepsStillWhileDraftStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "r1", Tool: "Read", Kind: "tool", Title: "main.go"})
			time.Sleep(2 * time.Second)
			tr.Emit(engine.ActionCompleted{ToolUseID: "r1", OK: true})
			for i := range 6 {
				tr.Emit(engine.Text{Text: "word" + strconv.Itoa(i) + " ", Partial: true})
				time.Sleep(500 * time.Millisecond)
			}
			tr.Complete("word0 word1 word2 word3 word4 word5")
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second })
		h.say("read it")
		h.awaitAnswer(h.dm.ID, "word5")
		calls := h.tg.Calls()
		answer := callIndex(calls, func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "word5")
		})
		for _, c := range calls[:answer] {
			if c.Method == "editMessageText" {
				t.Errorf("the progress message was edited while the draft streamed: %q", c.Params["text"])
			}
		}
	})
}

// A prompt answered quickly costs no "waiting for approval" edit of the
// progress message: the prompt itself says the turn waits.
func TestQuickPressSpendsNoWaitingEdit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ask := oneAsk(toolReq(t, "r1", "Bash", map[string]any{"command": "make"}))
		h := newHarness(t, func(tr *enginetest.Turn) {
			time.Sleep(3 * time.Second) // long enough to have a progress message, edited a while ago
			ask(tr)
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second })
		h.say("build")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make")
		time.Sleep(800 * time.Millisecond)
		h.press(h.user, h.dm, prompt, "Approve")
		h.awaitAnswer(h.dm.ID, "tool allowed")
		for _, c := range h.tg.CallsTo("editMessageText") {
			if strings.Contains(c.Params["text"], "waiting for approval") {
				t.Errorf("the progress message was edited to wait although the press came at once")
			}
		}
	})
}

// Text between tool calls does not hold the progress message back: the
// action list is news.
func TestProgressEditedWhenActionsFollowText(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			for i := range 16 {
				id := "t" + strconv.Itoa(i)
				tr.Emit(engine.Text{Text: "Next step " + strconv.Itoa(i) + ".", Partial: true})
				tr.Emit(engine.ActionStarted{ToolUseID: id, Tool: "Bash", Kind: "command", Title: "step " + strconv.Itoa(i)})
				time.Sleep(500 * time.Millisecond)
				tr.Emit(engine.ActionCompleted{ToolUseID: id, OK: true})
			}
			tr.Complete("done")
		}, func(c *telegram.Config) { c.MinEdit = 2 * time.Second })
		h.say("work")
		h.awaitAnswer(h.dm.ID, "done")
		if n := len(h.tg.CallsTo("editMessageText")); n < 2 {
			t.Errorf("%d edits in an 8 s turn of tool calls with text between them, want progress", n)
		}
	})
}

// When Claude's first words come at once, they are the turn's first draft:
// no "Thinking…" placeholder is spent before them.
func TestNoPlaceholderBeforeQuickWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, writing("Sure.", " Here it is."))
		h.say("quick")
		h.awaitAnswer(h.dm.ID, "Here it is.")
		// writing thinks for a second: a placeholder first.
		if d := h.tg.Drafts(h.dm.ID); len(d) == 0 || d[0].Text != "" {
			t.Fatalf("drafts %+v, want the placeholder first", d)
		}
		h2 := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Sure.", Partial: true})
			time.Sleep(time.Second)
			tr.Complete("Sure.")
		})
		h2.say("quick")
		h2.awaitAnswer(h2.dm.ID, "Sure.")
		if d := h2.tg.Drafts(h2.dm.ID); len(d) == 0 || d[0].Text != "Sure." {
			t.Errorf("drafts %+v, want Claude's words first", d)
		}
	})
}

// A quick follow-up right after an answer shows its first words in a
// draft while its answer waits for the chat's message window.
func TestFollowUpShowsDraftWhileAnswerWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ask := oneAsk(toolReq(t, "r1", "Bash", map[string]any{"command": "make"}))
		h := newHarness(t, func(tr *enginetest.Turn) {
			if tr.Prompt == "first" {
				tr.Start("m")
				for i := range 6 {
					tr.Emit(engine.Text{Text: "part" + strconv.Itoa(i) + " ", Partial: true})
					time.Sleep(300 * time.Millisecond)
				}
				ask(tr)
				return
			}
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Quick answer", Partial: true})
			time.Sleep(150 * time.Millisecond)
			tr.Complete("Quick answer.")
		}, func(c *telegram.Config) { c.Outbox = outbox.Options{} })
		h.say("first")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make")
		time.Sleep(500 * time.Millisecond)
		h.press(h.user, h.dm, prompt, "Approve")
		h.awaitAnswer(h.dm.ID, "tool allowed")
		h.say("second")
		h.awaitAnswer(h.dm.ID, "Quick answer.")
		if !slices.ContainsFunc(h.tg.Drafts(h.dm.ID), func(d tgtest.Draft) bool { return d.Text == "Quick answer" }) {
			t.Errorf("the follow-up's words never showed before its answer: drafts %+v", h.tg.Drafts(h.dm.ID))
		}
	})
}

// An answer that must wait for the chat's message window (the previous
// answer filled it) shows at once as a draft, which that window does not
// count, and its message follows when the window frees: never before the
// draft, and nothing lost.
func TestWaitingAnswerShowsAsDraft(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// No partial text: nothing was drafted yet.
		h := newHarness(t, windowFiller("Quick answer."), func(c *telegram.Config) { c.Outbox = outbox.Options{} })
		h.say("first")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return strings.Contains(m.Text, "$") })
		if n := len(h.tg.Messages(h.dm.ID)); n != 3 {
			t.Fatalf("the first answer took %d messages, want 3 (a full window)", n)
		}
		asked := time.Now()
		h.say("second")
		h.awaitAnswer(h.dm.ID, "Quick answer.")
		calls := h.tg.Calls()
		draft := callIndex(calls, func(c tgtest.Call) bool {
			return c.Method == "sendMessageDraft" && strings.Contains(c.Params["text"], "Quick answer.")
		})
		msg := callIndex(calls, func(c tgtest.Call) bool {
			return c.Method == "sendMessage" && strings.Contains(c.Params["text"], "Quick answer.")
		})
		if draft < 0 {
			t.Fatalf("the answer never showed as a draft while it waited; calls: %v", methods(calls))
		}
		if msg < draft {
			t.Fatalf("the answer's message came before its draft")
		}
		if lag := calls[draft].Time.Sub(asked); lag > 100*time.Millisecond {
			t.Errorf("the draft showed %v after the question, want at once", lag)
		}
		if waited := calls[msg].Time.Sub(calls[draft].Time); waited < time.Second {
			t.Errorf("the message came %v after the draft: the window was not full, the test proves nothing", waited)
		}
	})
}

// windowFiller answers "first" with three messages' worth (the chat's
// window of three), any other prompt with answer.
func windowFiller(answer string) enginetest.Script {
	long := strings.Repeat("word ", 1800)
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		if tr.Prompt == "first" {
			tr.Complete(long)
			return
		}
		tr.Complete(answer)
	}
}

func methods(calls []tgtest.Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.Method)
	}
	return out
}

// A chat's command menu is housekeeping: when many sessions start at once
// and the global budget is short, each chat's first words go before every
// menu refresh (one per chat, at its first session), not behind them.
func TestMenuRefreshWaitsBehindFirstWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var users []tgtest.User
		for i := range 6 {
			users = append(users, tgtest.User{ID: int64(5000 + i), FirstName: "U" + strconv.Itoa(i)})
		}
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Hi " + tr.Prompt, Partial: true})
			time.Sleep(5 * time.Second)
			tr.Complete("Hi " + tr.Prompt + ".")
		}, func(c *telegram.Config) {
			c.Outbox = outbox.Options{ChatInterval: -1, GroupPerMinute: -1, GlobalPerSecond: 2}
			for _, u := range users {
				c.AllowedUsers = append(c.AllowedUsers, u.ID)
			}
		})
		synctest.Wait()
		for i, u := range users {
			h.tg.SendMessage(u, tgtest.PrivateChat(u), "u"+strconv.Itoa(i))
		}
		for i, u := range users {
			h.awaitAnswer(u.ID, "Hi u"+strconv.Itoa(i)+".")
		}
		chatMenu := func(c tgtest.Call) bool {
			return c.Method == "setMyCommands" && strings.Contains(c.Params["scope"], "chat")
		}
		h.tg.Await(wait, "every chat's menu", func() bool {
			return len(slices.DeleteFunc(h.tg.CallsTo("setMyCommands"), func(c tgtest.Call) bool { return !chatMenu(c) })) == len(users)
		})
		calls := h.tg.Calls()
		menu := callIndex(calls, chatMenu)
		for i := range users {
			first := callIndex(calls, func(c tgtest.Call) bool {
				return c.Method == "sendMessageDraft" && strings.Contains(c.Params["text"], "Hi u"+strconv.Itoa(i))
			})
			if first < 0 || first > menu {
				t.Errorf("chat %d: first words at call %d, after a menu refresh (call %d): %v", i, first, menu, methods(calls))
			}
		}
	})
}
