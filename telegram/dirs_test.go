package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/telegram"
)

// The chat's directory is checked each time a command uses it, not only
// when a session starts (issue 20, item 3): /get, /diff, /branch,
// /sessions, /status and /cwd take it from the same check, and a directory
// that fails it sends the chat back to working_dir with the notice a
// session start gives.

// leadsOutside replaces dir by a link to outside, as a process (or the
// owner) could while the chat works there.
func leadsOutside(t *testing.T, dir, outside string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
}

// filesSent counts the files the bot sent, photos and documents.
func filesSent(h *harness) int {
	return len(h.tg.CallsTo("sendPhoto")) + len(h.tg.CallsTo("sendDocument")) + len(h.tg.CallsTo("sendMediaGroup"))
}

// fellBackOutside is the notice for a directory now leading outside.
func fellBackOutside(dir, outside string) string {
	return "The working directory " + dir + " now leads to " + outside + ", outside [claude] project_roots"
}

// fellBackNarrowed is the notice for a directory left out of the roots.
func fellBackNarrowed(dir string) string {
	return "The working directory " + dir + " is no longer inside [claude] project_roots"
}

// TestGetDirReplacedByLinkFallsBack: the chat's directory, with a live
// Claude process started there, is replaced by a link to a folder outside
// the roots. /get of a file in that folder sends nothing: the directory
// falls back to working_dir with the notice, the path is taken from
// there, and the next message starts a fresh session there.
func TestGetDirReplacedByLinkFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, outside := projects(t)
		writeFile(t, filepath.Join(outside, "id_ed25519"), "PRIVATE KEY")
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		runsIn(t, h, api)

		leadsOutside(t, api, outside)
		h.say("/get id_ed25519")
		note := h.awaitText(h.dm.ID, fellBackOutside(api, outside))
		if !strings.Contains(note.Text, "back in the default directory "+root) {
			t.Errorf("notice = %q", note.Text)
		}
		h.awaitText(h.dm.ID, "Not sent: "+filepath.Join(root, "id_ed25519"))
		synctest.Wait()
		if n := filesSent(h); n != 0 {
			t.Fatalf("%d files sent: /get read the folder the link leads to", n)
		}
		h.say("/status")
		h.awaitText(h.dm.ID, "Directory: "+root+" (config)")
		h.say("two")
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
	})
}

// TestGetOutsideNarrowedRootsFallsBack: after a restart with narrower
// project_roots, /get no longer reads the chat's old directory.
func TestGetOutsideNarrowedRootsFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, root, api, web, _ := stoppedInAPI(t)
		writeFile(t, filepath.Join(api, "notes.txt"), "api notes")

		h.start(func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{web} })
		h.say("/get notes.txt")
		h.awaitText(h.dm.ID, fellBackNarrowed(api))
		h.awaitText(h.dm.ID, "Not sent: "+filepath.Join(root, "notes.txt"))
		synctest.Wait()
		if n := filesSent(h); n != 0 {
			t.Fatalf("%d files sent from a directory outside today's roots", n)
		}
		h.say("two")
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
	})
}

// TestDiffDirReplacedByLinkFallsBack: /diff does not show the changes of
// a repository the chat's directory now leads to, outside the roots.
func TestDiffDirReplacedByLinkFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, outside := projects(t)
		gitRepo(t, outside)
		writeFile(t, filepath.Join(outside, "a.txt"), "one\nsecret change\n")
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)

		leadsOutside(t, api, outside)
		h.say("/diff")
		h.awaitText(h.dm.ID, fellBackOutside(api, outside))
		h.awaitText(h.dm.ID, root+" is not in a git repository")
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "secret change") {
				t.Errorf("/diff showed the outside repository:\n%s", m)
			}
		}
	})
}

// TestBranchOutsideNarrowedRootsFallsBack: after the roots were narrowed,
// /branch works from working_dir, not from the chat's old repository.
func TestBranchOutsideNarrowedRootsFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, root, api, web, _ := stoppedInAPI(t)
		gitRepo(t, api)

		h.start(func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{web} })
		h.say("/branch")
		h.awaitText(h.dm.ID, fellBackNarrowed(api))
		h.awaitText(h.dm.ID, root+" is not in a git repository")
		for _, m := range h.messages(h.dm.ID) {
			if strings.Contains(m, "Worktrees") {
				t.Errorf("/branch listed the old repository's worktrees:\n%s", m)
			}
		}
	})
}

// TestSessionsDirReplacedByLinkFallsBack: /sessions lists the sessions of
// working_dir after the chat's directory became a link out of the roots,
// and the chat's session (set aside) is no longer current.
func TestSessionsDirReplacedByLinkFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, outside := projects(t)
		cfgDir := t.TempDir()
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.eng.setClaudeDir(cfgDir)
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")
		storeSession(t, cfgDir, api, "desk-api", time.Now().Add(-time.Hour), "work in api")
		storeSession(t, cfgDir, root, "desk-root", time.Now().Add(-time.Hour), "work in root")

		leadsOutside(t, api, outside)
		h.say("/sessions")
		h.awaitText(h.dm.ID, fellBackOutside(api, outside))
		list := h.awaitText(h.dm.ID, "Sessions of this chat")
		for _, want := range []string{"Current: none", "In " + root + " (Claude Code's sessions", "1. work in root", "2. one"} {
			if !strings.Contains(list.Text, want) {
				t.Errorf("list lacks %q:\n%s", want, list.Text)
			}
		}
		if strings.Contains(list.Text, "work in api") {
			t.Errorf("list shows the sessions of the old directory:\n%s", list.Text)
		}
	})
}

// TestStatusAndCwdCheckTheDirectory: /status and /cwd show the directory
// as checked, not the stored one that no longer passes.
func TestStatusAndCwdCheckTheDirectory(t *testing.T) {
	for cmd, want := range map[string]string{"/status": "Directory: ", "/cwd": "Working directory: "} {
		t.Run(cmd[1:], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, root, api, web, _ := stoppedInAPI(t)

				h.start(func(c *telegram.Config) { c.WorkDir, c.ProjectRoots = root, []string{web} })
				h.say(cmd)
				h.awaitText(h.dm.ID, fellBackNarrowed(api))
				h.awaitText(h.dm.ID, want+root+" (config)")
			})
		})
	}
}

// TestClaudeCommandDirReplacedByLinkFallsBack: Claude Code's commands are
// looked up in the checked directory too: after the chat's directory
// became a link out of the roots, a command falls back with the notice and
// runs in a fresh session in working_dir, not in the old process.
func TestClaudeCommandDirReplacedByLinkFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, outside := projects(t)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd api")
		h.awaitText(h.dm.ID, "Working directory: "+api)
		h.say("one")
		h.awaitText(h.dm.ID, "Answer: one")

		leadsOutside(t, api, outside)
		h.say("/compact")
		h.awaitText(h.dm.ID, fellBackOutside(api, outside))
		h.awaitText(h.dm.ID, "Answer: /compact")
		runsIn(t, h, root)
	})
}
