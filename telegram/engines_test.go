package telegram_test

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram"
)

// withCodex offers a second engine, "codex", beside the harness's
// ("claude").
func withCodex(eng engine.Engine) harnessOpt {
	return func(c *telegram.Config) {
		c.EngineName = "claude"
		c.Engines = map[string]engine.Engine{"codex": eng}
	}
}

// /engine shows the engines as buttons; a press switches the chat: its
// next message runs on the other engine in a fresh session, /status and
// the footer name it; /engine claude switches back and the chat's Claude
// session is resumed, not a new one started.
func TestEngineSwitchesAndBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cx := &fakeEngine{script: echoScript}
		h := newHarness(t, echoScript, withCodex(cx))
		chat := h.dm.ID

		h.say("first on claude")
		h.awaitText(chat, "Answer: first on claude")
		claudeSession := h.eng.session(0).SessionID()

		h.say("/engine")
		list := h.awaitText(chat, "This chat runs Claude Code")
		if len(list.Keyboard) != 1 || len(list.Keyboard[0]) != 2 {
			t.Fatalf("/engine buttons = %+v, want one row of two", list.Keyboard)
		}
		h.tg.PressButton(h.user, h.dm, list.ID, "e:codex")
		h.awaitText(chat, "now runs Codex")

		h.say("hello codex")
		final := h.awaitText(chat, "Answer: hello codex")
		if !strings.Contains(final.Text, "Codex") {
			t.Errorf("the footer does not name the engine:\n%s", final.Text)
		}
		if got := cx.starts(); len(got) != 1 || got[0].Resume != "" {
			t.Fatalf("codex starts = %+v, want one fresh", got)
		}
		if n := len(h.eng.starts()); n != 1 {
			t.Errorf("claude started %d times, want only the first", n)
		}
		h.say("/status")
		if st := h.awaitText(chat, "Status"); !strings.Contains(st.Text, "Engine: codex") {
			t.Errorf("/status does not name the engine:\n%s", st.Text)
		}

		h.say("/engine codex")
		h.awaitText(chat, "runs Codex already")
		h.say("/engine nothing")
		h.awaitText(chat, "No engine nothing here")

		h.say("/engine claude")
		h.awaitText(chat, "continues its earlier session")
		h.say("back on claude")
		h.awaitText(chat, "Answer: back on claude")
		starts := h.eng.starts()
		if len(starts) != 2 || starts[1].Resume != claudeSession {
			t.Fatalf("claude starts = %+v, want the second to resume %s", starts, claudeSession)
		}
		h.say("/status")
		if st := h.awaitText(chat, "Engine: claude"); st.Text == "" {
			t.Error("no status")
		}
	})
}

// A bot with one engine says so and shows no buttons; /status and the
// footer stay as they were (no engine named).
func TestEngineWithOneEngine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		chat := h.dm.ID
		h.say("/engine codex")
		if m := h.awaitText(chat, "This bot runs one engine"); m.Keyboard != nil {
			t.Errorf("buttons with one engine: %+v", m.Keyboard)
		}
		h.say("hi")
		if final := h.awaitText(chat, "Answer: hi"); strings.Contains(final.Text, "Claude Code") {
			t.Errorf("the footer names the only engine:\n%s", final.Text)
		}
		h.say("/status")
		if st := h.awaitText(chat, "Status"); strings.Contains(st.Text, "Engine:") {
			t.Errorf("/status names the only engine:\n%s", st.Text)
		}
	})
}
