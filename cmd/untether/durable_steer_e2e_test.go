package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
	"github.com/untether/untether/telegram/tgtest"
)

// A message sent with "⚡ Send now" while a held Claude waits for an
// approval, then a stop and a start of the bot: after the approval the
// message goes into that turn's next request, the answer covers it, and
// it never runs again from the bot's stored queue (before, the restarted
// bot ran it a second time as an ordinary message).
func TestDurableSteerAcrossRestart(t *testing.T) {
	const steer = "also mention the weather"
	r, api := durableClaude(t,
		claudetest.Answer(claudetest.ToolUse("Bash", map[string]any{"command": "touch approved.txt", "description": "Create a file"})).Slow(1500*time.Millisecond),
		claudetest.Say("Created it, and it is sunny."),
		claudetest.Say("a second run"),
	)
	p := r.start(t)
	r.say("Create approved.txt")
	first := r.tg.AwaitMessage(durableWait, r.chat.ID, func(msg tgtest.Message) bool {
		return answerHas(msg, "touch approved.txt") && hasButton(msg, "Approve")
	})
	r.say(steer)
	note := r.awaitButtons(t, "⚡ Send now", "Queued", 0)
	if got := r.press(t, note, "⚡ Send now"); got != "Sent to the running turn" {
		t.Fatalf("toast of Send now = %q", got)
	}
	stop(t, p)

	p = r.start(t)
	r.tg.Await(durableWait, "the request asked again", func() bool {
		return strings.Contains(p.out.String(), "a prompt shown before the restart is live again")
	})
	r.tg.PressButton(r.user, r.chat, first.ID, buttonData(t, first, "Approve"))
	r.awaitText(t, "it is sunny")
	time.Sleep(3 * time.Second) // a second run of the message would come now
	reqs := api.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2 (the prompt, the tool result with the steered line)", len(reqs))
	}
	if !strings.Contains(reqs[1].AllText(), steer) {
		t.Error("the steered line is not in the turn's next request")
	}
	if n := r.withText("a second run"); n != 0 {
		t.Error("the steered message ran again as a turn of its own")
	}
	if _, err := os.Stat(filepath.Join(r.dir, "work", "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	stop(t, p)
}
