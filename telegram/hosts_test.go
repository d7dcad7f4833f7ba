package telegram_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/host"
	"github.com/untether/untether/telegram"
)

// withBox adds a second machine, "box", whose sessions the given engine
// starts in /box/code.
func withBox(t *testing.T, eng *fakeEngine, probe func(context.Context) (string, error)) harnessOpt {
	uploads := t.TempDir()
	return func(c *telegram.Config) {
		c.Machines = append(c.Machines, chat.MachineConfig{Name: "box", Engine: eng, WorkDir: "/box/code",
			UploadDir: uploads, MaxLive: 2, ClaudeVersion: "9.9.9", Probe: probe})
	}
}

// /host lists the machines and moves the chat: its next message starts a
// session on the other machine, in that machine's directory, and /status
// names it.
func TestHostMovesTheChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		box := &fakeEngine{script: echoScript}
		h := newHarness(t, echoScript, withBox(t, box, func(context.Context) (string, error) { return "9.9.9 (Claude Code)", nil }))
		chat := h.dm.ID

		h.say("/host")
		list := h.awaitText(chat, "Hosts")
		for _, want := range []string{"local", "this chat", "box", "9.9.9 (Claude Code)", "/box/code"} {
			if !strings.Contains(list.Text, want) {
				t.Errorf("/host list lacks %q:\n%s", want, list.Text)
			}
		}

		h.say("/host nowhere")
		h.awaitText(chat, `There is no host "nowhere"`)

		h.say("/host box")
		h.awaitText(chat, "now works on box")
		h.say("hello there")
		h.awaitText(chat, "Answer: hello there")
		if n := len(h.eng.starts()); n != 0 {
			t.Errorf("the local engine started %d sessions after the move", n)
		}
		starts := box.starts()
		if len(starts) != 1 || starts[0].WorkDir != "/box/code" {
			t.Fatalf("box starts = %+v, want one in /box/code", starts)
		}
		h.say("/status")
		st := h.awaitText(chat, "Status")
		if !strings.Contains(st.Text, "Host: box") || !strings.Contains(st.Text, "/box/code") {
			t.Errorf("/status does not name the host and its directory:\n%s", st.Text)
		}

		h.say("/host box")
		h.awaitText(chat, "already works on box")
		h.say("/host local")
		h.awaitText(chat, "now works on local")
		h.say("back home")
		h.awaitText(chat, "Answer: back home")
		if got := h.eng.starts(); len(got) != 1 || got[0].WorkDir != "/work" {
			t.Errorf("local starts = %+v, want one in /work", got)
		}
	})
}

// A host that cannot be reached keeps the message: the chat is told at
// once, the message stays pending (a restart would run it), and /retry
// runs it once the host answers. It runs once, not twice.
func TestUnreachableHostKeepsTheMessage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// As the runner reports a host that did not answer its look for claude.
		box := &fakeEngine{script: echoScript, startErr: fmt.Errorf("find claude binary %q: %w", "claude",
			&host.Unreachable{Reason: "ssh: connect to host box port 22: Connection refused"})}
		h := newHarness(t, echoScript, withBox(t, box, func(context.Context) (string, error) {
			return "", errors.New("ssh: connect to host box port 22: Connection refused")
		}))
		chat := h.dm.ID
		key := strconv.FormatInt(chat, 10)

		h.say("/host box")
		moved := h.awaitText(chat, "now works on box")
		if !strings.Contains(moved.Text, "does not answer") {
			t.Errorf("the move does not warn that box does not answer:\n%s", moved.Text)
		}
		h.say("/retry")
		h.awaitText(chat, "No message of this chat is waiting")

		h.say("summarise the logs")
		e := h.awaitText(chat, "box did not answer")
		for _, want := range []string{"ssh: connect to host box port 22: Connection refused", "ssh box", "/retry", "/host local"} {
			if !strings.Contains(e.Text, want) {
				t.Errorf("the notice lacks %q:\n%s", want, e.Text)
			}
		}
		// It is the host, not a missing Claude Code.
		for _, not := range []string{"install", "claude binary", "host unreachable"} {
			if strings.Contains(e.Text, not) {
				t.Errorf("the notice says %q:\n%s", not, e.Text)
			}
		}
		synctest.Wait()
		if p, err := h.pending(key); err != nil || len(p) != 1 || p[0].Text != "summarise the logs" {
			t.Fatalf("pending = %+v, %v; want the message kept", p, err)
		}

		box.mu.Lock()
		box.startErr = nil
		box.mu.Unlock()
		h.say("/retry")
		h.awaitText(chat, "Sending 1 kept message again")
		h.awaitText(chat, "Answer: summarise the logs")
		synctest.Wait()
		if p, _ := h.pending(key); len(p) != 0 {
			t.Errorf("the retried message is still pending: %+v", p)
		}
		h.say("/retry")
		h.awaitText(chat, "No message of this chat is waiting")
		if n := len(box.starts()); n != 1 {
			t.Errorf("box started %d sessions, want 1", n)
		}
		answers := 0
		for _, m := range h.messages(chat) {
			if strings.Contains(m, "Answer: summarise the logs") {
				answers++
			}
		}
		if answers != 1 {
			t.Errorf("the answer came %d times, want once", answers)
		}
	})
}

// A machine removed from the config is no choice any more: the chat works
// on the default again.
func TestUnconfiguredHostFallsBackToTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		box := &fakeEngine{script: echoScript}
		h := newHarness(t, echoScript, withBox(t, box, nil))
		chat := h.dm.ID
		h.say("/host box")
		h.awaitText(chat, "now works on box")
		h.stop()

		h.start() // the same state file, a config without box
		h.say("where am I")
		h.awaitText(chat, "Answer: where am I")
		if got := h.eng.starts(); len(got) != 1 || got[0].WorkDir != "/work" {
			t.Errorf("local starts = %+v, want one in /work", got)
		}
		if n := len(box.starts()); n != 0 {
			t.Errorf("box started %d sessions", n)
		}
	})
}

// A group member who is not an approver can move the chat with /host: when
// the bot has more than one machine, every approval prompt names the one it
// runs on, a tool's and a plan's, and says so again once answered; a bot
// with only its own machine names none.
func TestPromptNamesTheMachine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		asks := func(tr *enginetest.Turn) {
			tr.Start("m")
			d1 := tr.Ask(toolReq(t, "r-tool-"+tr.Prompt, "Bash", map[string]any{"command": "make deploy"}))
			d2 := tr.Ask(exitPlan(t, "r-plan-"+tr.Prompt, "Deploy it."))
			tr.Complete("tool " + decisionWord(d1) + ", plan " + decisionWord(d2))
		}
		box := &fakeEngine{script: asks}
		h := newHarness(t, asks, withBox(t, box, nil))
		chat := h.dm.ID
		const line = "On host <b>box</b>"

		h.say("here")
		tool := h.awaitPrompt(chat, "Approve", "make deploy")
		if !strings.Contains(tool.Source, "On host <b>local</b>") {
			t.Errorf("a prompt on this machine of a bot with two does not name it:\n%s", tool.Source)
		}
		h.press(h.user, h.dm, tool, "Approve")
		plan := h.awaitPrompt(chat, "Approve", "Deploy it.")
		h.press(h.user, h.dm, plan, "Approve")
		h.awaitText(chat, "tool allowed, plan allowed")

		h.say("/host box")
		h.awaitText(chat, "now works on box")
		h.say("there")
		tool = h.awaitPrompt(chat, "Approve", "make deploy")
		if !strings.Contains(tool.Source, line) {
			t.Errorf("the tool prompt of a chat on box does not name it:\n%s", tool.Source)
		}
		h.press(h.user, h.dm, tool, "Approve")
		if m := h.awaitResolved(chat, tool.ID, "Approved"); !strings.Contains(m.Source, line) {
			t.Errorf("the answered tool prompt no longer names the host:\n%s", m.Source)
		}
		plan = h.awaitPrompt(chat, "Approve", "Deploy it.")
		if !strings.Contains(plan.Source, line) {
			t.Errorf("the plan prompt of a chat on box does not name it:\n%s", plan.Source)
		}
		h.press(h.user, h.dm, plan, "Deny")
		h.awaitText(chat, "tool allowed, plan denied")
	})
}

// A bot with only its own machine has nothing to tell apart: its prompts
// name no machine.
func TestPromptOfOneMachineNamesNone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, oneAsk(toolReq(t, "r1", "Bash", map[string]any{"command": "make deploy"})))
		h.say("here")
		tool := h.awaitPrompt(h.dm.ID, "Approve", "make deploy")
		if strings.Contains(tool.Source, "🖥") {
			t.Errorf("a prompt of a bot with one machine names it:\n%s", tool.Source)
		}
		h.press(h.user, h.dm, tool, "Deny")
		h.awaitText(h.dm.ID, "tool denied")
	})
}
