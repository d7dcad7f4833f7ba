package telegram_test

import (
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/telegram"
)

// TestCommandRepliesAreHTML: every reply to a command is valid Telegram
// HTML, whatever the user typed: Telegram takes each on the first try
// (a refused one would go out again as plain text) and the user reads the
// words as written, "<name>" included.
func TestCommandRepliesAreHTML(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		for _, c := range []struct{ send, want string }{
			{"/model two words", "Usage: /model <name> | show | clear"},
			{"/planmode sideways", "Usage: /planmode on | off | auto | show | clear"},
			{"/verbose loud", "Usage: /verbose on | off"},
			{"/frobnicate", "Answer: /frobnicate"}, // not the bot's: Claude Code's to answer
			{"/model <b>&amp;", "Usage: /model <name> | show | clear"},
			{"/cwd <nowhere> & back", "does not exist"},
		} {
			h.say(c.send)
			h.awaitText(h.dm.ID, c.want)
		}
		for _, c := range h.tg.CallsTo("sendMessage") {
			if c.Status != http.StatusOK {
				t.Errorf("Telegram refused a reply (%d): %s\n%s", c.Status, c.Response, c.Params["text"])
			}
		}
	})
}

// /status names the untether and Claude Code versions the bot runs with.
func TestStatusShowsVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.Version, c.ClaudeVersion = "v1.2.0 (abc123def456)", "2.1.330" })
		h.say("/status")
		h.awaitText(h.dm.ID, "Versions: untether v1.2.0 (abc123def456) · Claude Code 2.1.330")
	})
}
