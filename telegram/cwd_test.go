package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
)

// projects makes a root with two projects and, outside it, a directory a
// link inside the root points to.
func projects(t *testing.T) (root, api, web, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "code")
	api, web = filepath.Join(root, "api"), filepath.Join(root, "web")
	outside = filepath.Join(base, "secrets")
	for _, d := range []string{api, web, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	return root, api, web, outside
}

func TestCwdPerChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, web, _ := projects(t)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })

		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		if s := h.eng.starts(); s[0].WorkDir != root {
			t.Errorf("first session in %q, want the configured %q", s[0].WorkDir, root)
		}

		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api+" (chat setting). Your next message starts a fresh Claude session there")
		h.say("/status")
		h.awaitText(h.dm.ID, "Directory: "+api+" (chat setting)")
		h.say("next")
		h.awaitText(h.dm.ID, "Answer: next")
		s := h.eng.starts()
		if len(s) != 2 || s[1].WorkDir != api || s[1].Resume != "" {
			t.Fatalf("after /cwd: starts %+v, want a fresh session in %s", s, api)
		}

		// Relative to the chat's current directory.
		h.say("/cwd ../web")
		h.awaitText(h.dm.ID, "Working directory: "+web+" (chat setting).")
		h.say("/cwd clear")
		h.awaitText(h.dm.ID, "Working directory: "+root+" (config).")
	})
}

func TestCwdRefusals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, _, _, outside := projects(t)
		release := make(chan struct{})
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			<-release
			tr.Complete("done")
		}, func(c *telegram.Config) { c.WorkDir = root })
		for _, c := range []struct{ arg, want string }{
			{outside, "is outside the directories this bot may work in"},
			{"escape", "is outside the directories this bot may work in"}, // a link out of the root
			{"..", "is outside the directories"},
			{"nope", "does not exist"},
		} {
			h.say("/cwd " + c.arg)
			m := h.awaitText(h.dm.ID, c.want)
			if !strings.Contains(m.Text, "project_roots") && !strings.Contains(m.Text, "does not exist") {
				t.Errorf("/cwd %s: %q", c.arg, m.Text)
			}
		}
		f := filepath.Join(root, "file.txt")
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		h.say("/cwd file.txt")
		h.awaitText(h.dm.ID, "is not a directory")

		// Not while a turn runs.
		h.say("work")
		h.awaitText(h.dm.ID, "working")
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "A turn is running or queued in this chat")
		close(release)
		h.awaitText(h.dm.ID, "done")
		h.say("/cwd show")
		h.awaitText(h.dm.ID, "Working directory: "+root+" (config).")
	})
}

// runsIn checks the last session started for the chat.
func runsIn(t *testing.T, h *harness, dir string) {
	t.Helper()
	s := h.eng.starts()
	if last := s[len(s)-1]; last.WorkDir != dir || last.Resume != "" {
		t.Errorf("session started in %q (resume %q), want a fresh one in %q", last.WorkDir, last.Resume, dir)
	}
}

// stoppedInAPI runs a turn in the api project (set by /cwd), then stops
// the bot.
func stoppedInAPI(t *testing.T) (h *harness, root, api, web, outside string) {
	t.Helper()
	root, api, web, outside = projects(t)
	h = newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
	h.say("/cwd api")
	h.awaitText(h.dm.ID, "Working directory: "+api)
	h.say("one")
	h.awaitText(h.dm.ID, "Answer: one")
	runsIn(t, h, api)
	h.stop()
	return h, root, api, web, outside
}

// A chat's directory is checked again whenever a session starts: after a
// restart with narrower project_roots, it falls back to working_dir, a
// fresh session, and the chat is told why.
func TestCwdOutsideNarrowedRootsFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, root, api, web, _ := stoppedInAPI(t)

		h.start(func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{web} })
		h.say("two")
		note := h.awaitText(h.dm.ID, "The working directory "+api+" is no longer inside [claude] project_roots")
		if !strings.Contains(note.Text, "back in the default directory "+root) {
			t.Errorf("notice = %q", note.Text)
		}
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
		h.say("/status")
		h.awaitText(h.dm.ID, "Directory: "+root+" (config)")
	})
}

// The directory replaced by a link that leads out of the roots: the link
// is resolved, and the chat falls back.
func TestCwdReplacedByLinkOutsideFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, root, api, _, outside := stoppedInAPI(t)
		if err := os.Remove(api); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, api); err != nil {
			t.Fatal(err)
		}

		h.start(func(c *telegram.Config) { c.WorkDir = root })
		h.say("two")
		h.awaitText(h.dm.ID, "The working directory "+api+" now leads to "+outside+", outside [claude] project_roots")
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
	})
}
