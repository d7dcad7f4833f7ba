package claudefiles

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/engine"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The names are those the CLI listed in system/init's slash_commands for
// the same files (measured with 2.1.330).
func TestCommandsNamedLikeClaudeCode(t *testing.T) {
	cfg, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude/commands/hello.md"), "---\ndescription: Say hello to someone\n---\nSay hello to $ARGUMENTS.\n")
	writeFile(t, filepath.Join(dir, ".claude/commands/frontend/comp.md"), "Make a component\n")
	writeFile(t, filepath.Join(dir, ".claude/commands/Code-Review_2.md"), "---\ndescription: review it\n---\nReview\n")
	writeFile(t, filepath.Join(dir, ".claude/skills/greet/SKILL.md"), "---\nname: greet\ndescription: Greets the user warmly\n---\nGreet.\n")
	writeFile(t, filepath.Join(dir, ".claude/skills/empty/README.md"), "not a skill")
	writeFile(t, filepath.Join(cfg, "commands/mine.md"), "# My own command\n")
	writeFile(t, filepath.Join(cfg, "commands/hello.md"), "the user's hello, hidden by the project's\n")

	got := Commands(context.Background(), nil, cfg, dir)
	want := []engine.Command{
		{Name: "Code-Review_2", Description: "review it"},
		{Name: "frontend:comp", Description: "Make a component"},
		{Name: "greet", Description: "Greets the user warmly"},
		{Name: "hello", Description: "Say hello to someone"},
		{Name: "mine", Description: "My own command", User: true},
	}
	if len(got) != len(want) {
		t.Fatalf("Commands = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("command %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// A FIFO, or a link to a device, among the command files (or in a
// commands folder's place) is skipped, never waited on: before, opening it
// froze whoever listed the commands (the bot's polling loop).
func TestCommandsSkipFilesThatBlock(t *testing.T) {
	cfg, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude/commands/hello.md"), "---\ndescription: Say hello\n---\n")
	writeFile(t, filepath.Join(dir, ".claude/skills/greet/SKILL.md"), "---\nname: greet\n---\nGreet.\n")
	var fifos []string
	for _, p := range []string{".claude/commands/stuck.md", ".claude/skills/stuck/SKILL.md"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		fifos = append(fifos, p)
	}
	if err := os.Symlink("/dev/ptmx", filepath.Join(dir, ".claude/commands/tty.md")); err != nil {
		t.Fatal(err)
	}
	// The user's commands folder is itself a FIFO.
	if err := syscall.Mkfifo(filepath.Join(cfg, "skills"), 0o600); err != nil {
		t.Fatal(err)
	}
	fifos = append(fifos, filepath.Join(cfg, "skills"))
	t.Cleanup(func() { // free a reader the old code left blocked
		for _, p := range fifos {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	})
	done := make(chan []engine.Command, 1)
	go func() { done <- Commands(context.Background(), nil, cfg, dir) }()
	select {
	case got := <-done:
		var names []string
		for _, c := range got {
			names = append(names, c.Name)
		}
		if strings.Join(names, ",") != "greet,hello" {
			t.Fatalf("Commands = %v, want greet and hello", names)
		}
	case <-time.After(20 * time.Second): // a hang, not a speed goal
		t.Fatal("listing the commands blocked on a FIFO")
	}
}
