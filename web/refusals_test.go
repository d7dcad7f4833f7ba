package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/prefs"
)

const (
	testToken = "123456:TEST-token"
	alice     = int64(1001)
	bob       = int64(1002) // allowed too, another user
	mallory   = int64(6666) // not allowed
)

// rig is a web server on httptest, with no core (the refusals never reach it).
type rig struct {
	s   *Server
	ts  *httptest.Server
	now time.Time
}

func newRig(t *testing.T, opts ...func(*Config, *prefs.Store)) *rig {
	t.Helper()
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	r := &rig{now: time.Unix(1_800_000_000, 0)}
	cfg := Config{Listen: "127.0.0.1:0", BotToken: testToken, Store: store, Now: func() time.Time { return r.now },
		Allowed: func(id int64) bool { return id == alice || id == bob },
		Key:     func(c int64, th int) string { return strconv.FormatInt(c, 10) }}
	for _, o := range opts {
		o(&cfg, store)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.s = s
	r.ts = httptest.NewServer(s.routes())
	t.Cleanup(r.ts.Close)
	s.base = r.ts.URL
	return r
}

func client(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func body(t *testing.T) func(*http.Response, error) (int, string) {
	return func(resp *http.Response, err error) (int, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
}

// signIn signs c in as user through a link, the way the page does.
func (r *rig) signIn(t *testing.T, c *http.Client, user int64) {
	t.Helper()
	link, err := r.s.LoginURL(user, "U")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/login", url.Values{"t": {u.Query().Get("t")}})); code != http.StatusSeeOther {
		t.Fatalf("sign-in answered %d", code)
	}
}

func TestMiniAppRefusesForgedOldAndStrangers(t *testing.T) {
	r := newRig(t)
	good := SignInitData(testToken, alice, "Alice", r.now.Add(-time.Hour))
	cases := map[string]string{
		"forged":    strings.Replace(good, "Alice", "Alicf", 1),
		"other bot": SignInitData("999:other", alice, "Alice", r.now),
		"old":       SignInitData(testToken, alice, "Alice", r.now.Add(-25*time.Hour)),
		"stranger":  SignInitData(testToken, mallory, "Mallory", r.now),
		"empty":     "",
	}
	for name, data := range cases {
		c := client(t)
		code, _ := body(t)(c.PostForm(r.ts.URL+"/app", url.Values{"initData": {data}}))
		if code != http.StatusForbidden {
			t.Errorf("%s initData: %d, want 403", name, code)
		}
		if code, _ := body(t)(c.Get(r.ts.URL + "/chat/" + strconv.FormatInt(alice, 10))); code != http.StatusUnauthorized {
			t.Errorf("%s initData: the chat page answered %d, want 401 (no session)", name, code)
		}
	}
	c := client(t)
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/app", url.Values{"initData": {good}})); code != http.StatusNoContent {
		t.Fatalf("good initData: %d, want 204", code)
	}
}

func TestLoginLinkIsSingleUseAndExpires(t *testing.T) {
	r := newRig(t)
	link, err := r.s.LoginURL(alice, "Alice")
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimPrefix(link, r.ts.URL+"/login?t=")
	c := client(t)
	if code, page := body(t)(c.Get(link)); code != http.StatusOK || !strings.Contains(page, `action="/login"`) {
		t.Fatalf("the link's page: %d %q", code, page)
	}
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/login", url.Values{"t": {tok}})); code != http.StatusSeeOther {
		t.Fatalf("first use: %d, want 303", code)
	}
	other := client(t)
	code, page := body(t)(other.PostForm(r.ts.URL+"/login", url.Values{"t": {tok}}))
	if code != http.StatusGone || !strings.Contains(page, "used already or has expired") {
		t.Errorf("reused link: %d %q", code, page)
	}
	if code, _ := body(t)(other.Get(link)); code != http.StatusGone {
		t.Errorf("reused link's page: %d, want 410", code)
	}
	old, _ := r.s.LoginURL(alice, "Alice")
	r.now = r.now.Add(loginTTL + time.Second)
	if code, _ := body(t)(other.PostForm(r.ts.URL+"/login", url.Values{"t": {strings.TrimPrefix(old, r.ts.URL+"/login?t=")}})); code != http.StatusGone {
		t.Errorf("expired link: %d, want 410", code)
	}
}

func TestStateChangesNeedCSRF(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, alice)
	chat := r.ts.URL + "/chat/" + strconv.FormatInt(alice, 10)
	for _, path := range []string{"/prompt", "/press"} {
		code, page := body(t)(c.PostForm(chat+path, url.Values{"text": {"hi"}, "request": {"x"}, "action": {"approve"}}))
		if code != http.StatusForbidden || !strings.Contains(page, "security token") {
			t.Errorf("%s without csrf: %d", path, code)
		}
		code, _ = body(t)(c.PostForm(chat+path, url.Values{"text": {"hi"}, "csrf": {"wrong"}}))
		if code != http.StatusForbidden {
			t.Errorf("%s with a wrong csrf: %d", path, code)
		}
	}
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/logout", nil)); code != http.StatusForbidden {
		t.Errorf("logout without csrf: %d", code)
	}
	ps, err := r.s.cfg.Store.AllPendingPrompts()
	if err != nil || len(ps) != 0 {
		t.Errorf("a refused prompt was stored: %v %v", ps, err)
	}
}

func TestAnotherUsersChatIsNotFound(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, alice)
	bobs := r.ts.URL + "/chat/" + strconv.FormatInt(bob, 10)
	for _, try := range []func() (*http.Response, error){
		func() (*http.Response, error) { return c.Get(bobs) },
		func() (*http.Response, error) { return c.Get(bobs + "/events") },
	} {
		if code, page := body(t)(try()); code != http.StatusNotFound || strings.Contains(page, "Message") {
			t.Errorf("bob's chat for alice: %d", code)
		}
	}
}

func TestRemovedUserIsOutAtOnce(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, bob)
	r.s.cfg.Allowed = func(id int64) bool { return id == alice }
	if code, _ := body(t)(c.Get(r.ts.URL + "/chat/" + strconv.FormatInt(bob, 10))); code != http.StatusForbidden {
		t.Errorf("a removed user's page: %d, want 403", code)
	}
}

func TestCrossSitePostRefused(t *testing.T) {
	r := newRig(t)
	req, _ := http.NewRequest(http.MethodPost, r.ts.URL+"/login", strings.NewReader("t=x"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if code, _ := body(t)(http.DefaultClient.Do(req)); code != http.StatusForbidden {
		t.Errorf("cross-site post: %d", code)
	}
}

func TestLoginAttemptsRateLimited(t *testing.T) {
	r := newRig(t)
	c := client(t)
	var last int
	for range 25 {
		last, _ = body(t)(c.PostForm(r.ts.URL+"/login", url.Values{"t": {"guess"}}))
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("the 25th guess in a minute: %d, want 429", last)
	}
	r.now = r.now.Add(time.Minute)
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/login", url.Values{"t": {"guess"}})); code != http.StatusGone {
		t.Errorf("a guess a minute later: %d, want 410", code)
	}
}

// Behind the proxy or tunnel docs/web.md recommends, every client has the
// proxy's address: a stranger's 20 bad guesses a minute must not keep the
// owner's own valid link (or Mini App data) from signing in. A valid token
// always signs in; only failures are counted (docs/web.md).
func TestStrangersGuessesDoNotLockOutAValidLink(t *testing.T) {
	r := newRig(t)
	stranger := client(t)
	for range 25 {
		body(t)(stranger.PostForm(r.ts.URL+"/login", url.Values{"t": {"guess"}}))
	}
	link, err := r.s.LoginURL(alice, "Alice")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(link)
	if code, _ := body(t)(client(t).PostForm(r.ts.URL+"/login", url.Values{"t": {u.Query().Get("t")}})); code != http.StatusSeeOther {
		t.Errorf("the owner's valid link after a stranger's guesses: %d, want 303", code)
	}
	other, err := r.s.LoginURL(bob, "Bob")
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := body(t)(client(t).Get(other)); code != http.StatusOK {
		t.Errorf("a valid link's page after a stranger's guesses: %d, want 200", code)
	}
	for range 25 {
		body(t)(stranger.PostForm(r.ts.URL+"/app", url.Values{"initData": {SignInitData(testToken, mallory, "Mallory", r.now)}}))
	}
	good := SignInitData(testToken, alice, "Alice", r.now)
	if code, _ := body(t)(client(t).PostForm(r.ts.URL+"/app", url.Values{"initData": {good}})); code != http.StatusNoContent {
		t.Errorf("valid Mini App data after a stranger's tries: %d, want 204", code)
	}
	if code, _ := body(t)(stranger.PostForm(r.ts.URL+"/login", url.Values{"t": {"guess"}})); code != http.StatusTooManyRequests {
		t.Errorf("the stranger's next guess: %d, want 429", code)
	}
}

// One leaked initData (valid 24 hours) signs in again and again: it must
// only crowd out its own user's least recently used sessions, never fill a
// table that keeps everyone else from signing in.
func TestLeakedInitDataCannotExhaustSessions(t *testing.T) {
	r := newRig(t)
	a := r.s.auth
	inUse := a.start(alice, "Alice")
	for i := range 12_000 {
		a.start(alice, "Alice")
		if i%(maxSessionsPerUser/2) == 0 {
			if _, ok := a.lookup(inUse.id); !ok {
				t.Fatalf("alice's session in use was evicted after %d sign-ins", i)
			}
		}
	}
	n := 0
	for _, s := range a.sessions {
		if s.userID == alice {
			n++
		}
	}
	if n > maxSessionsPerUser {
		t.Errorf("alice holds %d sessions, want at most %d", n, maxSessionsPerUser)
	}
	// Over HTTP: the leaked data keeps signing in, and bob still can.
	leaked := SignInitData(testToken, alice, "Alice", r.now.Add(-time.Hour))
	for range maxSessionsPerUser + 2 {
		if code, _ := body(t)(client(t).PostForm(r.ts.URL+"/app", url.Values{"initData": {leaked}})); code != http.StatusNoContent {
			t.Fatalf("leaked initData: %d", code)
		}
		a.lookup(inUse.id) // alice's own browser goes on being used
	}
	c := client(t)
	if code, _ := body(t)(c.PostForm(r.ts.URL+"/app", url.Values{"initData": {SignInitData(testToken, bob, "Bob", r.now)}})); code != http.StatusNoContent {
		t.Fatalf("bob's sign-in after alice's leaked data: %d, want 204", code)
	}
	if code, _ := body(t)(c.Get(r.ts.URL + "/chat/" + strconv.FormatInt(bob, 10))); code != http.StatusOK {
		t.Errorf("bob's chat page: %d, want 200", code)
	}
	if _, ok := a.lookup(inUse.id); !ok {
		t.Errorf("alice's session in use was evicted by the leaked data's sign-ins over HTTP")
	}
}

// One user sending /web over and over (with allow_any_user, anyone) must
// not use up the links everyone else gets: each user keeps their newest
// few, the oldest stop working.
func TestOneUsersLinksDoNotExhaustOthers(t *testing.T) {
	r := newRig(t)
	first, err := r.s.LoginURL(alice, "Alice")
	if err != nil {
		t.Fatal(err)
	}
	var last string
	for range 2 * maxLogins {
		if last, err = r.s.LoginURL(alice, "Alice"); err != nil {
			t.Fatalf("alice's /web: %v", err)
		}
	}
	if _, err := r.s.LoginURL(bob, "Bob"); err != nil {
		t.Errorf("bob's /web after alice's many: %v", err)
	}
	tok := func(link string) string { u, _ := url.Parse(link); return u.Query().Get("t") }
	if code, _ := body(t)(client(t).PostForm(r.ts.URL+"/login", url.Values{"t": {tok(last)}})); code != http.StatusSeeOther {
		t.Errorf("alice's newest link: %d, want 303", code)
	}
	if code, _ := body(t)(client(t).PostForm(r.ts.URL+"/login", url.Values{"t": {tok(first)}})); code != http.StatusGone {
		t.Errorf("alice's first of many links: %d, want 410", code)
	}
}
