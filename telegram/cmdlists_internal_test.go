package telegram

import (
	"testing"

	"github.com/untether/untether/engine"
)

func TestMenuNameAndFindCommand(t *testing.T) {
	for name, want := range map[string]string{"hello": "hello", "Code-Review_2": "code_review_2", "frontend:comp": "frontend_comp"} {
		if got, ok := menuName(name); !ok || got != want {
			t.Errorf("menuName(%q) = %q %v", name, got, ok)
		}
	}
	for _, bad := range []string{"", "ünï", "a.b", "this-name-is-far-too-long-for-telegram-menus"} {
		if got, ok := menuName(bad); ok {
			t.Errorf("menuName(%q) = %q, want none", bad, got)
		}
	}
	cmds := []engine.Command{{Name: "code-review"}, {Name: "code_review_x"}}
	if c, ok := findCommand(cmds, "code_review"); !ok || c.Name != "code-review" {
		t.Errorf("menu name not mapped back: %+v %v", c, ok)
	}
	if _, ok := findCommand(cmds, "nope"); ok {
		t.Error("found a command that is not there")
	}
}
