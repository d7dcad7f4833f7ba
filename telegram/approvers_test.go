package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// In a group with approver_user_ids, only the approvers answer a prompt:
// the prompt names them, another allowed user's press is refused with a
// toast that says who may, and leaves the buttons for an approver.
func TestApproverOnlyInGroups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bob := tgtest.User{ID: 5151, FirstName: "Bob", Username: "bob"}
		const carol = 7070 // an approver the bot has not seen yet
		h := newHarness(t, oneAsk(toolReq(t, "g1", "Bash", map[string]any{"command": "make release"})), func(c *telegram.Config) {
			c.AllowedUsers = append(c.AllowedUsers, bob.ID, carol)
			c.Approvers = []int64{4242, carol} // 4242: the harness user, @ada
		})
		g := tgtest.Supergroup(-100777, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" release it")
		prompt := h.awaitPrompt(g.ID, "Approve", "make release")
		if !strings.Contains(prompt.Text, "Only @ada or user 7070 may answer") ||
			!strings.Contains(prompt.Source, `<a href="tg://user?id=7070">`) {
			t.Errorf("the prompt should name its approvers:\n%s\n%s", prompt.Text, prompt.Source)
		}
		cq := h.press(bob, g, prompt, "Approve")
		if got := h.toast(cq); got != "Only @ada or user 7070 may answer this prompt" {
			t.Errorf("toast for a user who is not an approver = %q", got)
		}
		synctest.Wait()
		if n := len(h.answersOf(0)); n != 0 {
			t.Fatalf("a press by someone who is not an approver wrote %d answers", n)
		}
		if m, _ := h.tg.Message(g.ID, prompt.ID); len(m.Keyboard) == 0 {
			t.Fatal("a refused press must leave the buttons")
		}
		if got := h.toast(h.press(h.user, g, prompt, "Approve")); got != "Approved" {
			t.Errorf("approver's toast = %q", got)
		}
		h.awaitResolved(g.ID, prompt.ID, "Approved by @ada")
		h.awaitText(g.ID, "tool allowed")
	})
}

// The approvers do not apply to private chats: their one user answers.
func TestApproversLeavePrivateChatsAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "p1", "Bash", map[string]any{"command": "make"})), func(c *telegram.Config) {
			c.Approvers = []int64{999}
		})
		h.say("build")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "make")
		if strings.Contains(prompt.Text, "may answer") {
			t.Errorf("a private chat's prompt names approvers: %q", prompt.Text)
		}
		if got := h.toast(h.press(h.user, h.dm, prompt, "Approve")); got != "Approved" {
			t.Errorf("toast = %q", got)
		}
		h.awaitText(h.dm.ID, "tool allowed")
	})
}

// A text typed while a question waits for one answers it only when an
// approver typed it: anyone else's is a prompt of its own, queued behind
// the turn.
func TestApproverTypedAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bob := tgtest.User{ID: 5151, FirstName: "Bob", Username: "bob"}
		req := askReq(t, "q9", question{q: "Release name?", header: "Name", options: []string{"v1", "v2"}})
		ask := oneAsk(req)
		h := newHarness(t, func(tr *enginetest.Turn) {
			if tr.N == 1 {
				ask(tr)
				return
			}
			tr.Start("m")
			tr.Complete("prompt: " + tr.Prompt)
		}, func(c *telegram.Config) {
			c.AllowedUsers = append(c.AllowedUsers, bob.ID)
			c.Approvers = []int64{4242}
		})
		g := tgtest.Supergroup(-100556, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" release")
		prompt := h.awaitPrompt(g.ID, "Other", "Release name?")
		if got := h.toast(h.press(bob, g, prompt, "Other")); !strings.HasPrefix(got, "Only @ada may answer") {
			t.Errorf("bob's press on Other: toast %q", got)
		}
		h.toast(h.press(h.user, g, prompt, "Other"))
		h.tg.Await(wait, "the prompt to ask for a typed answer", func() bool {
			m, _ := h.tg.Message(g.ID, prompt.ID)
			return strings.Contains(m.Text, "Reply to this message with your answer")
		})
		h.tg.SendMessage(bob, g, "bobs-name", tgtest.ReplyTo(prompt.ID))
		synctest.Wait()
		if n := len(h.answersOf(0)); n != 0 {
			t.Fatalf("bob's text answered the question (%d answers)", n)
		}
		h.tg.SendMessage(h.user, g, "v3-final", tgtest.ReplyTo(prompt.ID))
		h.awaitResolved(g.ID, prompt.ID, "Answered by @ada")
		if got := answersIn(t, h.onlyAnswer(0).Decision); got["Release name?"] != "v3-final" {
			t.Errorf("answers = %v", got)
		}
		// Bob's text ran as a prompt of its own once the turn was over.
		h.awaitText(g.ID, "prompt: bobs-name")
	})
}

// An approver the bot has not seen in the group is named as Telegram
// knows them from their private chat with the bot (getChat at start).
func TestApproverNamedFromTheirChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		carol := tgtest.User{ID: 7071, FirstName: "Carol", Username: "carol"}
		h := newHarnessPre(t, oneAsk(toolReq(t, "g2", "Bash", map[string]any{"command": "make release"})),
			func(tg *tgtest.Server) { tg.AddChat(tgtest.PrivateChat(carol)) },
			func(c *telegram.Config) {
				c.AllowedUsers = append(c.AllowedUsers, carol.ID)
				c.Approvers = []int64{carol.ID}
			})
		h.tg.AwaitCall(wait, "getChat", func(c tgtest.Call) bool { return c.OK() })
		synctest.Wait()
		g := tgtest.Supergroup(-100778, "team")
		h.tg.AddChat(g)
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" release it")
		prompt := h.awaitPrompt(g.ID, "Approve", "make release")
		if !strings.Contains(prompt.Text, "Only @carol may answer.") {
			t.Errorf("the prompt should name @carol:\n%s", prompt.Text)
		}
		if got := h.toast(h.press(h.user, g, prompt, "Approve")); got != "Only @carol may answer this prompt" {
			t.Errorf("toast = %q", got)
		}
	})
}
