package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/transcript"
)

const team = int64(-100777) // a group of Config.Groups

// fakeMembers answers IsMember from in, or fails; it counts the questions.
type fakeMembers struct {
	mu    sync.Mutex
	in    map[[2]int64]bool
	fail  bool
	asked int
}

func (f *fakeMembers) IsMember(_ context.Context, chatID, userID int64) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	if f.fail {
		return false, errors.New("getChatMember: 502 Bad Gateway")
	}
	return f.in[[2]int64{chatID, userID}], nil
}

func (f *fakeMembers) set(in, fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.in[[2]int64{team, alice}], f.fail = in, fail
}

func (f *fakeMembers) questions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked
}

type fakeHistory struct{}

func (fakeHistory) Turns(context.Context, string) ([]transcript.Turn, error) { return nil, nil }
func (fakeHistory) Export(context.Context, string, transcript.Format, time.Time) (transcript.File, error) {
	return transcript.File{Name: "team.md", Data: []byte("# the team's conversation"), Turns: 1}, nil
}

// csrfOf is the CSRF token a page's forms carry.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `name="csrf" value="`)
	if !ok {
		t.Fatalf("no csrf in the page:\n%s", page)
	}
	return rest[:strings.IndexByte(rest, '"')]
}

// A group of allowed_chat_ids is only for its members, as in Telegram,
// where a non-member cannot write there: an allowed user who is not in it
// gets "not found" on each of its pages and actions, membership is asked
// on every request, a member who leaves loses the open page's stream, and
// when Telegram cannot say, the group is not usable.
func TestGroupOnlyForItsMembers(t *testing.T) {
	m := &fakeMembers{in: map[[2]int64]bool{{team, alice}: true}}
	r := newRig(t, func(c *Config, _ *prefs.Store) { c.Groups, c.Members, c.History = []int64{team}, m, fakeHistory{} })
	grp := r.ts.URL + "/chat/" + strconv.FormatInt(team, 10)

	bobs := client(t)
	r.signIn(t, bobs, bob)
	_, own := body(t)(bobs.Get(r.ts.URL + "/chat/" + strconv.FormatInt(bob, 10)))
	csrf := csrfOf(t, own)
	for name, try := range map[string]func() (*http.Response, error){
		"chat page": func() (*http.Response, error) { return bobs.Get(grp) },
		"events":    func() (*http.Response, error) { return bobs.Get(grp + "/events") },
		"export":    func() (*http.Response, error) { return bobs.Get(grp + "/export?format=md") },
		"changes":   func() (*http.Response, error) { return bobs.Get(grp + "/changes") },
		"prompt": func() (*http.Response, error) {
			return bobs.PostForm(grp+"/prompt", url.Values{"csrf": {csrf}, "text": {"hello team"}})
		},
		"press": func() (*http.Response, error) {
			return bobs.PostForm(grp+"/press", url.Values{"csrf": {csrf}, "request": {"req-1"}, "action": {"approve"}})
		},
	} {
		before := m.questions()
		resp, err := try()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resp.Body.Close() // the events of a chat one may see would stream on
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("a non-member's %s: %d, want 404", name, resp.StatusCode)
		}
		if m.questions() == before {
			t.Errorf("a non-member's %s: membership was not asked", name)
		}
	}
	if ps, err := r.s.cfg.Store.AllPendingPrompts(); err != nil || len(ps) != 0 {
		t.Errorf("a non-member's prompt was stored: %v %v", ps, err)
	}

	alices := client(t)
	r.signIn(t, alices, alice)
	if code, _ := body(t)(alices.Get(grp)); code != http.StatusOK {
		t.Errorf("a member's chat page: %d, want 200", code)
	}
	if code, file := body(t)(alices.Get(grp + "/export?format=md")); code != http.StatusOK || !strings.Contains(file, "the team's conversation") {
		t.Errorf("a member's export: %d %q", code, file)
	}
	_, page := body(t)(alices.Get(grp))
	if code, _ := body(t)(alices.PostForm(grp+"/press", url.Values{"csrf": {csrfOf(t, page)}, "request": {"gone"}, "action": {"approve"}})); code != http.StatusConflict {
		t.Errorf("a member's press of an answered request: %d, want 409 (past the membership check)", code)
	}

	// An open page's stream ends at its next update once she left.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang's bound
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, grp+"/events", nil)
	resp, err := alices.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a member's events: %v %v", resp, err)
	}
	defer resp.Body.Close()
	first := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "data:" {
		t.Fatalf("the first event: %q %v", first, err)
	}
	m.set(false, false)
	r.s.hub.Observe(chat.Event{Kind: chat.EvText, Key: strconv.FormatInt(team, 10), Place: chat.Place{ChatID: team}, Text: "more"})
	rest, err := io.ReadAll(resp.Body)
	if err != nil || strings.Contains(string(rest), "more") {
		t.Errorf("after leaving the group, the stream went on: %q %v", rest, err)
	}

	m.set(true, true) // Telegram fails: closed
	if code, _ := body(t)(alices.Get(grp)); code != http.StatusNotFound {
		t.Errorf("a member's chat page while Telegram fails: %d, want 404", code)
	}
	m.set(true, false)
	if code, _ := body(t)(alices.Get(grp)); code != http.StatusOK {
		t.Errorf("a member's chat page once Telegram answers: %d, want 200", code)
	}
}
