package telegram_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/runner/claudefiles"
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

// TestSessionsReadErrorIsEscaped: when the sessions cannot be read, the
// error reaches the chat as text, escaped for HTML: Telegram takes the
// message on the first try, and the user reads the error as it is.
func TestSessionsReadErrorIsEscaped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.say("/sessions")
		h.awaitText(h.dm.ID, "No earlier sessions yet") // the bot is up: it can stop cleanly
		h.stop()
		if err := h.store.Close(); err != nil {
			t.Fatal(err)
		}
		// A state file whose session record is not JSON: reading it fails
		// with an error that quotes '<'.
		path := filepath.Join(t.TempDir(), "corrupt.db")
		db, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("sessions"))
			if err != nil {
				return err
			}
			return b.Put([]byte(strconv.FormatInt(h.dm.ID, 10)), []byte("<b>not json</b> & more"))
		})
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.store, err = prefs.Open(context.Background(), path); err != nil {
			t.Fatal(err)
		}
		h.start()

		h.say("/sessions")
		m := h.awaitText(h.dm.ID, "Could not read the sessions")
		if !strings.Contains(m.Text, "invalid character '<'") {
			t.Errorf("the error is not shown as it is: %q", m.Text)
		}
		for _, c := range h.tg.CallsTo("sendMessage") {
			if c.Status != http.StatusOK {
				t.Errorf("Telegram refused a message (%d): %s\n%s", c.Status, c.Response, c.Params["text"])
			}
		}
	})
}

// TestSessionsOnlyThisDirectorysOwn: Claude Code files the sessions of
// .../api/v2 and .../api-v2 under one folder. A chat working in api/v2
// is offered only the sessions that started there, never api-v2's, and a
// listed session whose file turns out to have started elsewhere when it
// is tapped is not resumed.
func TestSessionsOnlyThisDirectorysOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, cfgDir := resolved(t, t.TempDir()), t.TempDir()
		dir, other := filepath.Join(root, "api", "v2"), filepath.Join(root, "api-v2")
		for _, d := range []string{dir, other} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if claudefiles.SessionsDir(cfgDir, dir) != claudefiles.SessionsDir(cfgDir, other) {
			t.Fatalf("%s and %s no longer share a folder of the store", dir, other)
		}
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = dir })
		h.eng.setClaudeDir(cfgDir)
		storeSessionFrom(t, cfgDir, dir, other, "desk-other", time.Now().Add(-time.Minute), "the api-v2 plan")
		storeSession(t, cfgDir, dir, "desk-mine", time.Now().Add(-time.Hour), "the v2 plan")

		h.say("/sessions")
		list := h.awaitText(h.dm.ID, "Claude Code's sessions, newest first")
		if !strings.Contains(list.Text, "1. the v2 plan") || strings.Contains(list.Text, "api-v2 plan") {
			t.Errorf("list, want only the session of %s:\n%s", dir, list.Text)
		}
		if got := buttonTexts(list); len(got) != 1 {
			t.Errorf("buttons %v, want one", got)
		}

		// The file is replaced by one of the other directory before the tap.
		storeSessionFrom(t, cfgDir, dir, other, "desk-mine", time.Now().Add(-time.Hour), "the v2 plan")
		if got := h.toast(h.press(h.user, h.dm, list, "1. the v2 plan")); got != "That session belongs to another directory" {
			t.Errorf("toast %q", got)
		}
		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		if s := h.eng.starts(); s[len(s)-1].Resume != "" {
			t.Errorf("start %+v, want a fresh session, not a resume of another directory's", s[len(s)-1])
		}
	})
}
