package telegram_test

import (
	"net/url"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// Whatever Claude writes, no text the bot sends carries a secret: not its
// answer, not a progress line, not an approval prompt or its buttons.

const apiSecret = "sk-ant-api03-LEAKYLEAKYLEAKY"

// pieces are the parts of a secret a cut could leave: its first and last
// 8 characters.
func pieces(secret string) []string { return []string{secret[:8], secret[len(secret)-8:]} }

// assertNoLeak fails when any text the bot sent or edited holds a piece of
// one of the secrets.
func (h *harness) assertNoLeak(secrets ...string) {
	h.t.Helper()
	for _, c := range h.tg.Calls() {
		if c.Method == "getUpdates" {
			continue
		}
		for k, v := range c.Params {
			for _, s := range secrets {
				for _, p := range pieces(s) {
					if strings.Contains(v, p) {
						h.t.Errorf("%s %s carries %q of a secret: %q", c.Method, k, p, v)
					}
				}
			}
		}
	}
}

func withSecret(c *telegram.Config) { c.Secrets = []string{apiSecret} }

// A final answer longer than one message, with the token where the first
// part is cut, and the API key URL-escaped further on.
func TestSecretInFinalAcrossTheCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tok string
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Complete(strings.Repeat("x", 4080) + tok + " and https://x/?k=" + url.QueryEscape(apiSecret) + " " + strings.Repeat("y", 200))
		}, withSecret)
		tok = h.tg.Token()
		h.say("long answer please")
		h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return strings.Contains(m.Text, "yyyy") })
		h.assertNoLeak(tok, apiSecret)
		if n := strings.Count(strings.Join(h.messages(h.dm.ID), "\n"), "[redacted]"); n != 2 {
			t.Errorf("want 2 redactions in the answer, got %d", n)
		}
	})
}

// A Bash command and its output carrying the token, shown in the progress
// message; and the last text Claude wrote before its answer.
func TestSecretInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tok string
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.Text{Text: "Using " + apiSecret + " now"})
			tr.Emit(engine.ActionStarted{ToolUseID: "tu1", Tool: "Bash", Kind: "command",
				Title: "curl -H 'Authorization: Bot " + tok + "' https://api.example"})
			tr.Emit(engine.ActionCompleted{ToolUseID: "tu1", OK: true, Detail: "token=" + tok})
			<-release
			tr.Complete("done")
		}, withSecret, func(c *telegram.Config) { c.MaxActions = 8 })
		tok = h.tg.Token()
		id := h.say("curl it")
		progress := h.progressFor(h.dm.ID, id)
		h.tg.Await(wait, "the progress to show the command", func() bool {
			m, _ := h.tg.Message(h.dm.ID, progress.ID)
			return strings.Contains(m.Text, "curl -H")
		})
		close(release)
		h.awaitText(h.dm.ID, "done")
		h.assertNoLeak(tok, apiSecret)
	})
}

// An approval prompt whose command holds the token shows it redacted; the
// command Claude runs once approved is the one it asked for.
func TestSecretInApprovalPrompt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tok string
		var got enginetest.Decision
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			got = tr.Ask(toolReq(t, "r1", "Bash", map[string]any{
				"command":     "curl -H 'Authorization: Bot " + tok + "' https://api.example/" + url.PathEscape(apiSecret),
				"description": "Call the API with " + apiSecret,
			}))
			tr.Complete(decisionWord(got))
		}, withSecret)
		tok = h.tg.Token()
		h.say("call it")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "curl -H")
		h.press(h.user, h.dm, prompt, "Approve")
		h.awaitText(h.dm.ID, "allowed")
		h.assertNoLeak(tok, apiSecret)
		if a := h.onlyAnswer(0); !strings.Contains(string(a.Decision.UpdatedInput), tok) {
			t.Errorf("the approved input must be Claude's own, unredacted: %s", a.Decision.UpdatedInput)
		}
	})
}

// Question and option texts (the options are buttons) are redacted too.
func TestSecretInQuestion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			d := tr.Ask(askReq(t, "q1", question{q: "Use key " + apiSecret + "?", header: "Key", options: []string{"yes " + apiSecret, "no"}}))
			tr.Complete(decisionWord(d))
		}, withSecret)
		h.say("ask me")
		prompt := h.awaitPrompt(h.dm.ID, "no", "Use key")
		h.press(h.user, h.dm, prompt, "no")
		h.awaitText(h.dm.ID, "allowed")
		h.assertNoLeak(apiSecret)
	})
}
