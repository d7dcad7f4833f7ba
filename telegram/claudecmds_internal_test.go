package telegram

import (
	"testing"

	"github.com/untether/untether/telegram/view"
)

// Every command in the bot's menu is one the bot answers itself: one left
// out of isBotCommand would be passed to Claude instead (as /get was when
// two features landed at once).
func TestMenuCommandsAreTheBots(t *testing.T) {
	for _, c := range view.Commands() {
		if !isBotCommand(c.Command) {
			t.Errorf("/%s is in the menu but not isBotCommand: it would go to Claude", c.Command)
		}
	}
}
