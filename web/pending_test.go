package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/untether/untether/telegram/tgtest"
)

// A request that waited before the web view began to watch (the view
// started late, or the bot restarted with it waiting) is on the home and
// chat pages with its buttons, and Approve answers it: it came in the
// core's snapshot, not as an event.
func TestPendingBeforeTheViewStarted(t *testing.T) {
	e := newE2E(t, nil)
	e.tg.SendMessage(e.user, tgtest.PrivateChat(e.user), "please run the tests")
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("reply_markup"), "callback_data") })
	e.serve()

	c := e.signedIn(t)
	get := func(resp *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	home := get(c.Get(e.base + "/"))
	if !strings.Contains(home, "Waiting for approval") || !strings.Contains(home, "make test-everything") ||
		!strings.Contains(home, `value="approve"`) {
		t.Fatalf("the home page does not show the waiting request:\n%s", home)
	}
	page := get(c.Get(e.base + "/chat/4242"))
	i := strings.Index(page, `name="csrf" value="`)
	if !strings.Contains(page, "waiting for approval") || i < 0 {
		t.Fatalf("the chat page:\n%s", page)
	}
	csrf := page[i+len(`name="csrf" value="`):]
	csrf = csrf[:strings.IndexByte(csrf, '"')]
	get(c.PostForm(e.base+"/chat/4242/press", url.Values{"csrf": {csrf}, "request": {"req-1"}, "action": {"approve"}}))
	e.tg.AwaitCall(hang, "sendMessage", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "the command ran") })
	e.tg.AwaitCall(hang, "editMessageText", func(c tgtest.Call) bool { return strings.Contains(c.Param("text"), "on the web") })

	// The changes page asks the core; this chat works outside git.
	if ch := get(c.Get(e.base + "/chat/4242/changes")); !strings.Contains(ch, "is not in a git repository") {
		t.Errorf("the changes page outside git:\n%s", ch)
	}
}
