package telegram_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
)

// The tests here show that /cwd, the check when a session starts and
// /branch use the one rule for "inside the project roots"
// (scope.InRoots, table in scope.TestInRoots), through cases their old
// copies of it got wrong.

// TestCwdRefusesInvisibleName: a directory inside the root whose name
// holds a right-to-left override is refused, and the reply writes the
// character out; before, /cwd moved the chat there.
func TestCwdRefusesInvisibleName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, _, _, _ := projects(t)
		if err := os.Mkdir(filepath.Join(root, "ap\u202ei"), 0o755); err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd ap\u202ei")
		h.awaitText(h.dm.ID, "ap<U+202E>i holds an invisible or direction-changing character")
		h.say("/cwd show")
		h.awaitText(h.dm.ID, "Working directory: "+root+" (config).")
	})
}

// TestCwdDotDotThroughLinkOut: "escape/../api" names api as written, but
// the kernel walks it through the link out of the root; like every path
// the rule judges, it must be inside both ways, so it is refused (before,
// the written reading alone decided).
func TestCwdDotDotThroughLinkOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root, api, _, _ := projects(t)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = root })
		h.say("/cwd escape/../api")
		h.awaitText(h.dm.ID, "is outside the directories this bot may work in")
		h.say("/cwd ./api/")
		h.awaitText(h.dm.ID, "Working directory: "+api+" (chat setting).")
	})
}

// TestCwdStoredInvisibleNameFallsBack: a chat directory stored before /cwd
// refused such names is refused when a session starts: the chat goes back
// to working_dir and is told why, the name written out.
func TestCwdStoredInvisibleNameFallsBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, root, _, _, _ := stoppedInAPI(t)
		odd := filepath.Join(root, "ap\u202ei")
		if err := os.Mkdir(odd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := h.store.SetWorkDir(telegram.SessionKey(h.dm.ID, 0), odd); err != nil {
			t.Fatal(err)
		}
		h.start(func(c *telegram.Config) { c.WorkDir = root })
		h.say("two")
		h.awaitText(h.dm.ID, "The working directory "+filepath.Join(root, "ap<U+202E>i")+" holds an invisible or direction-changing character")
		h.awaitText(h.dm.ID, "Answer: two")
		runsIn(t, h, root)
	})
}

// TestBranchRefusesInvisibleName: a branch whose name holds a right-to-left
// override would get a worktree folder of that name; it is refused before
// git makes anything (before, the worktree was made and the chat moved).
func TestBranchRefusesInvisibleName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := resolved(t, t.TempDir())
		repo := filepath.Join(root, "api")
		gitRepo(t, repo)
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.WorkDir = repo; c.ProjectRoots = []string{root} })
		h.say("/branch feat\u202enigol")
		h.awaitText(h.dm.ID, "feat<U+202E>nigol holds an invisible or direction-changing character")
		if _, err := os.Stat(filepath.Join(root, "api.worktrees")); err == nil {
			t.Error("a worktree was made")
		}
	})
}
