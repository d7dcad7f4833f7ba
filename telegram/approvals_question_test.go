package telegram_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram/tgtest"
)

// AskUserQuestion at the Telegram level: options as buttons, multi-select
// with Done, Other answered by the next text message, several questions.

type question struct {
	q, header string
	multi     bool
	options   []string
}

func askReq(t testing.TB, id string, qs ...question) engine.ApprovalRequest {
	var list []any
	for _, q := range qs {
		var opts []any
		for _, o := range q.options {
			opts = append(opts, map[string]any{"label": o, "description": "about " + o})
		}
		list = append(list, map[string]any{"question": q.q, "header": q.header, "multiSelect": q.multi, "options": opts})
	}
	return toolReq(t, id, "AskUserQuestion", map[string]any{"questions": list})
}

// answersIn decodes the answers the bot put into updatedInput, and checks
// the questions were kept.
func answersIn(t *testing.T, d enginetest.Decision) map[string]string {
	t.Helper()
	var in struct {
		Questions []json.RawMessage `json:"questions"`
		Answers   map[string]string `json:"answers"`
	}
	if err := json.Unmarshal(d.UpdatedInput, &in); err != nil {
		t.Fatalf("updatedInput %s: %v", d.UpdatedInput, err)
	}
	if len(in.Questions) == 0 {
		t.Errorf("updatedInput lost the questions: %s", d.UpdatedInput)
	}
	return in.Answers
}

func TestQuestionSingleChoice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req := askReq(t, "q1", question{q: "Which database should I use?", header: "Database", options: []string{"Postgres", "SQLite"}})
		h := newHarness(t, oneAsk(req))
		h.say("set up storage")
		prompt := h.awaitPrompt(h.dm.ID, "SQLite", "Which database should I use?")
		rows := buttonTexts(prompt)
		if len(rows) != 3 || rows[0][0] != "Postgres" || rows[1][0] != "SQLite" ||
			len(rows[2]) != 2 || !strings.Contains(rows[2][0], "Other") || !strings.Contains(rows[2][1], "Dismiss") {
			t.Errorf("question buttons = %v", rows)
		}
		if st := buttonStyles(prompt); st["Dismiss"] != "danger" || st["SQLite"] != "" {
			t.Errorf("button styles = %v, want Dismiss red and the options plain", st)
		}
		t.Logf("question prompt:\n%s\nbuttons: %v", prompt.Text, rows)
		if got := h.toast(h.press(h.user, h.dm, prompt, "SQLite")); got != "Answered" {
			t.Errorf("toast = %q", got)
		}
		a := h.onlyAnswer(0)
		if !a.Decision.Allow {
			t.Fatalf("answer = %+v, want allow with the answers", a)
		}
		if got := answersIn(t, a.Decision); len(got) != 1 || got["Which database should I use?"] != "SQLite" {
			t.Errorf("answers = %v", got)
		}
		edited := h.awaitResolved(h.dm.ID, prompt.ID, "Answered by @ada")
		if !strings.Contains(edited.Text, "Which database should I use? → SQLite") {
			t.Errorf("the resolved question should show the answer:\n%s", edited.Text)
		}
		t.Logf("after the answer:\n%s", edited.Text)
		h.awaitText(h.dm.ID, "tool allowed")
	})
}

func TestQuestionMultiSelectOtherAndSequence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req := askReq(t, "q2",
			question{q: "Which checks should run?", header: "Checks", multi: true, options: []string{"lint", "unit", "e2e"}},
			question{q: "Where should the report go?", header: "Report", options: []string{"stdout", "file"}})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			d := tr.Ask(req)
			tr.Complete("questions " + decisionWord(d))
		})
		h.say("run checks")
		prompt := h.awaitPrompt(h.dm.ID, "Done", "Which checks should run?")
		if !strings.Contains(prompt.Text, "(1/2)") || !strings.Contains(prompt.Text, "Choose one or more") {
			t.Errorf("multi-select prompt:\n%s", prompt.Text)
		}
		if got := h.toast(h.press(h.user, h.dm, prompt, "Done")); got != "Choose at least one option, or Other" {
			t.Errorf("Done with nothing selected: toast %q", got)
		}
		if got := h.toast(h.press(h.user, h.dm, prompt, "lint")); got != "Selected: lint" {
			t.Errorf("toast = %q", got)
		}
		toggled := h.awaitKeyboard(h.dm.ID, prompt.ID, "✓ lint")
		h.toast(h.press(h.user, h.dm, toggled, "e2e"))
		toggled = h.awaitKeyboard(h.dm.ID, prompt.ID, "✓ e2e")
		t.Logf("multi-select after two toggles:\n%s\nbuttons: %v", toggled.Text, buttonTexts(toggled))
		if got := h.toast(h.press(h.user, h.dm, toggled, "Done")); got != "Next question" {
			t.Errorf("toast = %q", got)
		}
		// The same message now asks the second question.
		next := h.awaitKeyboard(h.dm.ID, prompt.ID, "stdout")
		for _, want := range []string{"(2/2)", "Which checks should run? → lint, e2e", "Where should the report go?"} {
			if !strings.Contains(next.Text, want) {
				t.Errorf("second question lacks %q:\n%s", want, next.Text)
			}
		}
		// A button of the first question is dead now.
		old, _ := findButton(toggled, "unit")
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, prompt.ID, old)); got != "This request is no longer pending" {
			t.Errorf("an old question's button: toast %q", got)
		}
		if got := h.toast(h.press(h.user, h.dm, next, "Other")); got != "Send your answer as a message" {
			t.Errorf("toast = %q", got)
		}
		waiting := h.awaitKeyboard(h.dm.ID, prompt.ID, "Other")
		h.tg.Await(wait, "the prompt to ask for a typed answer", func() bool {
			waiting, _ = h.tg.Message(h.dm.ID, prompt.ID)
			return strings.Contains(waiting.Text, "Send your answer as a message")
		})
		t.Logf("waiting for a typed answer:\n%s", waiting.Text)
		h.say("a <b>markdown</b> file in /tmp")
		edited := h.awaitResolved(h.dm.ID, prompt.ID, "Answered by @ada")
		t.Logf("after the typed answer:\n%s", edited.Text)
		h.awaitText(h.dm.ID, "questions allowed")
		a := h.onlyAnswer(0)
		got := answersIn(t, a.Decision)
		if got["Which checks should run?"] != "lint, e2e" || got["Where should the report go?"] != "a <b>markdown</b> file in /tmp" {
			t.Errorf("answers = %v", got)
		}
		// The typed answer was not run as a new prompt.
		if n := countText(h, "Queued"); n != 0 {
			t.Errorf("the typed answer was queued as a prompt")
		}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if strings.Contains(m.Text, "questions allowed") {
				return
			}
		}
	})
}

func TestQuestionDismissAndTextAfterwards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req := askReq(t, "q3", question{q: "Rename the package?", header: "Rename", options: []string{"yes", "no"}})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			if tr.Prompt == "rename" {
				tr.Complete("questions " + decisionWord(tr.Ask(req)))
				return
			}
			tr.Complete("prompt: " + tr.Prompt)
		})
		h.say("rename")
		prompt := h.awaitPrompt(h.dm.ID, "Dismiss", "Rename the package?")
		if got := h.toast(h.press(h.user, h.dm, prompt, "Dismiss")); got != "Dismissed" {
			t.Errorf("toast = %q", got)
		}
		h.awaitResolved(h.dm.ID, prompt.ID, "Dismissed by @ada")
		h.awaitText(h.dm.ID, "questions denied")
		a := h.onlyAnswer(0)
		if a.Decision.Allow || !strings.Contains(a.Decision.Message, "dismissed") {
			t.Errorf("answer = %+v", a)
		}
		// With no question waiting, text is a prompt again.
		h.say("something else")
		h.awaitText(h.dm.ID, "prompt: something else")
	})
}

func TestQuestionOtherInGroupNeedsAddressing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		req := askReq(t, "q4", question{q: "Release name?", header: "Name", options: []string{"v1", "v2"}})
		h := newHarness(t, oneAsk(req))
		g := tgtest.Supergroup(-100555, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" release")
		prompt := h.awaitPrompt(g.ID, "Other", "Release name?")
		if got := h.toast(h.press(h.user, g, prompt, "Other")); got != "Reply to the question with your answer" {
			t.Errorf("in a group the toast should say to reply: %q", got)
		}
		h.tg.Await(wait, "the prompt to ask for a typed answer", func() bool {
			m, _ := h.tg.Message(g.ID, prompt.ID)
			return strings.Contains(m.Text, "Reply to this message with your answer")
		})
		// Group chatter that is not addressed to the bot is not taken.
		h.tg.SendMessage(tgtest.User{ID: 31337, FirstName: "Mallory"}, g, "@"+h.tg.Bot().Username+" evil-name")
		h.tg.SendMessage(h.user, g, "lunch?")
		// A reply to the prompt is addressed to the bot.
		h.tg.SendMessage(h.user, g, "v3-final", tgtest.ReplyTo(prompt.ID))
		h.awaitResolved(g.ID, prompt.ID, "Answered by @ada")
		h.awaitText(g.ID, "tool allowed")
		if got := answersIn(t, h.onlyAnswer(0).Decision); got["Release name?"] != "v3-final" {
			t.Errorf("answers = %v", got)
		}
	})
}

// TestQuestionConcurrentTogglesEndConsistent: presses are handled in
// parallel; whatever order their edits are queued in, the prompt must end up
// showing every selected option. The race rarely shows here (edits go out
// fast); TestPromptBookIgnoresOlderStates pins the ordering rule itself.
func TestQuestionConcurrentTogglesEndConsistent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"}
		req := askReq(t, "qc", question{q: "Which ones?", header: "Pick", multi: true, options: opts})
		h := newHarness(t, oneAsk(req))
		h.say("pick")
		prompt := h.awaitPrompt(h.dm.ID, "Done", "Which ones?")
		var presses []string
		for _, o := range opts {
			presses = append(presses, h.press(h.user, h.dm, prompt, o)) // all in one getUpdates batch
		}
		for _, cq := range presses {
			h.toast(cq)
		}
		selected := func() int {
			m, _ := h.tg.Message(h.dm.ID, prompt.ID)
			n := 0
			for _, row := range m.Keyboard {
				for _, b := range row {
					if strings.HasPrefix(b.Text, "✓") {
						n++
					}
				}
			}
			return n
		}
		h.tg.Await(wait, "every option shown selected", func() bool { return selected() == len(opts) })
		synctest.Wait() // the bot is idle: a stale edit still queued would have landed
		if n := selected(); n != len(opts) {
			t.Errorf("prompt shows %d of %d selected options after the edits settled", n, len(opts))
		}
	})
}
