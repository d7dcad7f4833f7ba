package claudefiles

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/untether/untether/host/hosttest"
)

// Claude Code's files are read on the host they are on: the store's
// folder listed and a session file opened there, the commands' folders
// listed and their files opened there.
func TestFilesUseTheirHost(t *testing.T) {
	cfg, dir, ctx := t.TempDir(), "/code/api", context.Background()
	writeSession(t, cfg, dir, "s1", dir, "hello", time.Minute)
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, ".claude/commands/hi.md"), "---\ndescription: hi\n---\n")
	rec := &hosttest.Recorder{}
	f := Files{ConfigDir: cfg, Host: rec}
	if list, err := f.ListSessions(ctx, dir, 0); err != nil || len(list) != 1 || list[0].FirstPrompt != "hello" {
		t.Fatalf("ListSessions = %+v, %v", list, err)
	}
	if s, ok := f.StatSession(dir, "s1"); !ok || s.ID != "s1" {
		t.Fatalf("StatSession = %+v, %v", s, ok)
	}
	if cmds := f.Commands(ctx, proj); len(cmds) != 1 || cmds[0].Name != "hi" {
		t.Fatalf("Commands = %+v", cmds)
	}
	file := filepath.Join(SessionsDir(cfg, dir), "s1.jsonl")
	for _, call := range []string{"ReadDir " + SessionsDir(cfg, dir), "Open " + file, "Stat " + file,
		"ReadDir " + filepath.Join(proj, ".claude", "commands"), "Open " + filepath.Join(proj, ".claude", "commands", "hi.md")} {
		if !rec.Called(call) {
			t.Errorf("no %q among the host's calls: %v", call, rec.Calls())
		}
	}
}
