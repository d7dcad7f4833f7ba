package web_test

import (
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/telegram/weblink"
	"github.com/untether/untether/web"
)

// The whole way: the web view asks the fake Bot API's getChatMember
// (telegram/weblink.Members) whether a user is in a group. A member sees
// the group on the home page and can prompt it (the answer appears in the
// group); an allowed user who never joined sees no trace of it and gets
// 404; while Telegram fails, the member does not see it either.
func TestGroupOnTheWebOnlyForMembers(t *testing.T) {
	grp := tgtest.Supergroup(-1009876, "Team Room")
	bob := tgtest.User{ID: 4343, FirstName: "Bob"}
	e := newE2E(t, nil, func(tg *tgtest.Server, c *web.Config) {
		tg.AddChat(grp)
		api := weblink.API{URL: tg.URL(), Token: tg.Token()}
		c.Groups, c.Members, c.Title = []int64{grp.ID}, &weblink.Members{API: api}, (&weblink.Titles{API: api, Log: c.Log}).Title
		c.Allowed = func(id int64) bool { return id == 4242 || id == bob.ID }
	})
	e.serve()
	e.tg.SetMember(grp, e.user, tgtest.StatusMember, false)
	key := telegram.SessionKey(grp.ID, 0)
	get := func(c *http.Client, path string) (int, string) {
		t.Helper()
		resp, err := c.Get(e.base + path)
		if err != nil {
			t.Fatal(err)
		}
		return readAll(t, resp)
	}

	// Telegram fails from before the first question: nothing is kept.
	stop := e.tg.FailWhen(func(c tgtest.Call) bool { return c.Method == "getChatMember" }, tgtest.Failure{Code: 502})
	alice := e.signedIn(t) // lands on the home page
	if _, home := get(alice, "/"); strings.Contains(home, "Team Room") {
		t.Errorf("the home page shows the group while Telegram fails:\n%s", home)
	}
	if code, _ := get(alice, "/chat/"+key); code != http.StatusNotFound {
		t.Errorf("the group's page while Telegram fails: %d, want 404", code)
	}
	stop()
	_, home := get(alice, "/")
	if !strings.Contains(home, "Team Room") || !strings.Contains(home, `href="/chat/`+key+`"`) {
		t.Fatalf("a member's home page lacks the group:\n%s", home)
	}
	code, page := get(alice, "/chat/"+key)
	if code != http.StatusOK {
		t.Fatalf("a member's group page: %d", code)
	}
	csrf := page[strings.Index(page, `name="csrf" value="`)+len(`name="csrf" value="`):]
	csrf = csrf[:strings.IndexByte(csrf, '"')]
	resp, err := alice.PostForm(e.base+"/chat/"+key+"/prompt", url.Values{"csrf": {csrf}, "text": {"hello team"}})
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := readAll(t, resp); code != http.StatusOK {
		t.Errorf("a member's prompt: %d", code)
	}
	e.tg.AwaitMessage(hang, grp.ID, func(m tgtest.Message) bool { return strings.Contains(m.Text, "echo: hello team") })

	bobs := e.signedInAs(t, bob.ID, "Bob")
	if _, home := get(bobs, "/"); strings.Contains(home, "Team Room") || strings.Contains(home, key) {
		t.Errorf("a non-member's home page shows the group:\n%s", home)
	}
	for _, path := range []string{"", "/events", "/changes", "/export?format=md"} {
		if code, _ := get(bobs, "/chat/"+key+path); code != http.StatusNotFound {
			t.Errorf("a non-member's %q: %d, want 404", path, code)
		}
	}
	_, own := get(bobs, "/chat/"+strconv.FormatInt(bob.ID, 10))
	bcsrf := own[strings.Index(own, `name="csrf" value="`)+len(`name="csrf" value="`):]
	bcsrf = bcsrf[:strings.IndexByte(bcsrf, '"')]
	for _, action := range []string{"/prompt", "/press"} {
		resp, err := bobs.PostForm(e.base+"/chat/"+key+action, url.Values{"csrf": {bcsrf}, "text": {"from bob"}, "request": {"x"}, "action": {"approve"}})
		if err != nil {
			t.Fatal(err)
		}
		if code, _ := readAll(t, resp); code != http.StatusNotFound {
			t.Errorf("a non-member's %s: %d, want 404", action, code)
		}
	}
}

func readAll(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
