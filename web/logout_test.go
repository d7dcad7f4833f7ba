package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/untether/untether/telegram/tgtest"
)

// /web logout in Telegram ends the web sessions at once: a page signed in
// before it is signed out after (a group is weblink's unit test).
func TestWebLogoutEndsSessions(t *testing.T) {
	e := newE2E(t, nil)
	e.serve()
	e.link(t) // /web answers with a link
	c := e.signedIn(t)
	status := func() int {
		resp, err := c.Get(e.base + "/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := status(); got != http.StatusOK {
		t.Fatalf("signed in: %d", got)
	}
	e.tg.SendMessage(e.user, tgtest.PrivateChat(e.user), "/web logout")
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "Signed out: 1 web session") })
	if got := status(); got != http.StatusUnauthorized {
		t.Errorf("after /web logout the home page answered %d, want 401", got)
	}
}
