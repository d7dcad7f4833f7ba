package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

func TestSessionsListAndSwitch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, _ := projects(t)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })

		h.say("/sessions")
		h.awaitText(h.dm.ID, "No earlier sessions yet")

		h.say("fix the login bug")
		h.awaitText(h.dm.ID, "Answer: fix the login bug")
		h.say("/cwd api") // a fresh session in another directory
		h.awaitText(h.dm.ID, "Your next message starts a fresh Claude session there")
		h.say("write the docs")
		h.awaitText(h.dm.ID, "Answer: write the docs")

		h.say("/sessions")
		list := h.awaitText(h.dm.ID, "1. fix the login bug")
		for _, want := range []string{"Current: write the docs · " + api, "1. fix the login bug · " + root} {
			if !strings.Contains(list.Text, want) {
				t.Errorf("list lacks %q:\n%s", want, list.Text)
			}
		}
		if len(list.Keyboard) != 1 {
			t.Fatalf("buttons %v, want one for the earlier session", buttonTexts(list))
		}
		spent, _ := findButton(list, "1. fix the login bug")
		if got := h.toast(h.press(h.user, h.dm, list, "1. fix the login bug")); got != "Switched" {
			t.Errorf("toast %q", got)
		}
		h.awaitResolved(h.dm.ID, list.ID, "Switched to fix the login bug in "+root)

		// The next message resumes the first session, in its directory.
		h.say("and the logout bug")
		h.awaitText(h.dm.ID, "Answer: and the logout bug")
		s := h.eng.starts()
		last := s[len(s)-1]
		if last.Resume != "sess-1" || last.WorkDir != root {
			t.Errorf("after switching: start %+v, want a resume of sess-1 in %s", last, root)
		}
		h.say("/cwd show")
		h.awaitText(h.dm.ID, "Working directory: "+root+" (config)")

		// The list's buttons are spent; another chat cannot use them either.
		if got := h.toast(h.tg.SendCallbackQuery(h.user, h.dm, list.ID, spent)); !strings.Contains(got, "out of date") {
			t.Errorf("second press: toast %q", got)
		}
		h.say("/sessions")
		list2 := h.awaitText(h.dm.ID, "1. write the docs")
		other := tgtest.PrivateChat(tgtest.User{ID: 4243, FirstName: "Bo"})
		data, _ := findButton(list2, "1. write the docs")
		if got := h.toast(h.tg.SendCallbackQuery(h.user, other, list2.ID, data)); !strings.Contains(got, "another chat") {
			t.Errorf("press from another chat: toast %q", got)
		}
	})
}
