package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram/tgtest"
	"github.com/untether/untether/telegram/view"
)

// The menu Telegram gets at start is view.Commands, entry for entry, and
// an alias (or /start for /help) answers exactly as its command does,
// without reaching Claude.
func TestCommandAliasesAndMenu(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.tg.Await(wait, "the bot's menu", func() bool { return len(h.tg.Commands()) > 0 })
		var menu []string
		for _, c := range h.tg.Commands() {
			menu = append(menu, c.Command+": "+c.Description)
		}
		var want []string
		for _, c := range view.Commands() {
			want = append(want, c.Command+": "+c.Description)
		}
		if strings.Join(menu, "\n") != strings.Join(want, "\n") {
			t.Errorf("menu set:\n%s\nwant:\n%s", strings.Join(menu, "\n"), strings.Join(want, "\n"))
		}
		reply := func(text string) string {
			id := h.say(text)
			return h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool { return m.ReplyTo == id }).Source
		}
		for _, pair := range [][2]string{{"/cwd show", "/cd show"}, {"/sessions", "/resume"}, {"/help", "/start"}, {"/cwd show", "/CD show"}} {
			if a, b := reply(pair[0]), reply(pair[1]); a != b {
				t.Errorf("%s answered\n%s\nbut %s\n%s", pair[0], a, pair[1], b)
			}
		}
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("the bot's commands started Claude %d times", n)
		}
	})
}
