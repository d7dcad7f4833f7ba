package web

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/untether/untether/prefs"
)

// The config accepts public_url's scheme in any case (url.Parse lowers
// it): "HTTPS://…" is https too, so the cookie is Secure and the Mini App
// is offered.
func TestPublicURLSchemeInCapitals(t *testing.T) {
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	s, err := New(Config{Listen: "127.0.0.1:0", PublicURL: "HTTPS://bot.example.org", BotToken: testToken, Store: store,
		Allowed: func(id int64) bool { return id == alice },
		Key:     func(c int64, th int) string { return strconv.FormatInt(c, 10) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	s.ln.Close()
	if s.AppURL() == "" {
		t.Errorf("no Mini App for public_url %q", s.cfg.PublicURL)
	}
	ts := httptest.NewServer(s.routes())
	t.Cleanup(ts.Close)
	link, err := s.LoginURL(alice, "Alice")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	resp, err := client(t).PostForm(ts.URL+"/login", url.Values{"t": {u.Query().Get("t")}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if len(cookies) != 1 || !cookies[0].Secure {
		t.Errorf("session cookie for an https public_url: %+v, want Secure", cookies)
	}
}
