package projects

import (
	"os"
	"path/filepath"
	"testing"
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

	got := Commands(cfg, dir)
	want := []Command{
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

func TestMenuNameAndFind(t *testing.T) {
	for name, want := range map[string]string{"hello": "hello", "Code-Review_2": "code_review_2", "frontend:comp": "frontend_comp"} {
		if got, ok := MenuName(name); !ok || got != want {
			t.Errorf("MenuName(%q) = %q %v", name, got, ok)
		}
	}
	for _, bad := range []string{"", "ünï", "a.b", "this-name-is-far-too-long-for-telegram-menus"} {
		if got, ok := MenuName(bad); ok {
			t.Errorf("MenuName(%q) = %q, want none", bad, got)
		}
	}
	cmds := []Command{{Name: "code-review"}, {Name: "code_review_x"}}
	if c, ok := FindCommand(cmds, "code_review"); !ok || c.Name != "code-review" {
		t.Errorf("menu name not mapped back: %+v %v", c, ok)
	}
	if _, ok := FindCommand(cmds, "nope"); ok {
		t.Error("found a command that is not there")
	}
}
