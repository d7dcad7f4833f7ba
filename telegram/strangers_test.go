package telegram_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// Strangers cannot slow the owner down: their presses cost no disk write
// and few answers, one account's flood is capped, and a CLI that stops
// answering stalls only its own chat.

// settled waits until the bot has taken every update sent so far.
func (h *harness) settled() {
	h.t.Helper()
	h.tg.Await(wait, "the bot to take every update", func() bool { return h.tg.PendingUpdates() == 0 })
}

func TestStrangersPressesCostNoWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		// Its reply comes after its last write: the bot is quiet from then on.
		h.say("/verbose on")
		h.awaitText(h.dm.ID, "Verbose progress")
		h.settled()
		offset, err := h.store.Offset()
		if err != nil {
			t.Fatal(err)
		}
		commits := h.store.Commits()
		const presses = 300
		for i := range presses {
			s := tgtest.User{ID: int64(700_000 + i), FirstName: "Stranger" + strconv.Itoa(i)}
			h.tg.SendCallbackQuery(s, tgtest.PrivateChat(s), 1, "junk:"+strconv.Itoa(i))
		}
		h.settled()
		// Nothing is written per press; once the bot is idle the offset
		// catches up with them in one write.
		h.tg.Await(wait, "the stored offset to pass the presses", func() bool {
			o, _ := h.store.Offset()
			return o == offset+presses
		})
		if n := h.store.Commits() - commits; n > 1 {
			t.Errorf("%d presses from strangers cost %d commits of the state file, want at most 1 (the offset)", presses, n)
		}
		h.say("still there?")
		h.awaitText(h.dm.ID, "Answer: still there?")
		h.stop() // drains the outbox: every answer the bot meant to give is given
		answers := h.tg.CallbackAnswers()
		if len(answers) > 10 {
			t.Errorf("%d presses from strangers got %d answers, want at most 10", presses, len(answers))
		}
		for _, a := range answers {
			if a.Text != "You are not allowed to answer this" {
				t.Errorf("a stranger's press was answered %q", a.Text)
			}
		}
	})
}

func TestPressLimitPerUser(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		for i := range 40 {
			h.tg.SendCallbackQuery(h.user, h.dm, 1, "junk:"+strconv.Itoa(i))
		}
		h.settled()
		h.stop()
		expired, tooMany := 0, 0
		for _, a := range h.tg.CallbackAnswers() {
			switch a.Text {
			case "This button has expired":
				expired++
			case "Too many presses: wait a few seconds":
				tooMany++
			default:
				t.Errorf("unexpected answer %q", a.Text)
			}
		}
		// 30 back to back, then one a second: the presses arrive within
		// moments, so a few more may have been earned meanwhile.
		if expired < 30 || expired > 35 || tooMany != 1 {
			t.Errorf("40 presses at once: %d handled and %d told to slow down, want 30 (a few more if slow) and 1", expired, tooMany)
		}
	})
}

// stuckConn is a CLI that never answers a mode switch or a decision; it
// gives up only when the caller's context ends (as runner.Session does).
type stuckConn struct {
	*enginetest.Session
	release <-chan struct{}
}

func (c *stuckConn) wait(ctx context.Context) error {
	select {
	case <-c.release:
		return fmt.Errorf("test over")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *stuckConn) SetPermissionMode(ctx context.Context, mode string) error { return c.wait(ctx) }

func (c *stuckConn) Allow(ctx context.Context, requestID string, updatedInput json.RawMessage, updatedPermissions []json.RawMessage) error {
	return c.wait(ctx)
}

// stickDM makes the direct chat's CLI stuck; the group's works.
func (h *harness) stickDM() {
	release := make(chan struct{})
	h.t.Cleanup(func() { close(release) }) // before the bot stops (cleanups run last first)
	key := strconv.FormatInt(h.dm.ID, 10)
	h.eng.mu.Lock()
	defer h.eng.mu.Unlock()
	h.eng.wrap = func(spec engine.Spec, s *enginetest.Session) engine.Conn {
		if spec.SessionKey == key {
			return &stuckConn{Session: s, release: release}
		}
		return s
	}
}

func (h *harness) group() tgtest.Chat {
	g := tgtest.Supergroup(-100321, "team")
	h.tg.AddChat(g)
	return g
}

func TestStuckModeSwitchStallsOnlyItsChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript)
		h.stickDM()
		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		h.say("/planmode on") // the live CLI never answers the switch
		g := h.group()
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" still working?")
		h.awaitText(g.ID, "Answer: still working?")
		// /cancel reaches the stuck chat and frees it.
		h.say("/cancel")
		h.awaitText(h.dm.ID, "It applies when the session next starts (context canceled)")
		h.say("after")
		h.awaitText(h.dm.ID, "Answer: after")
	})
}

func TestStuckModeSwitchIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, echoScript, func(c *telegram.Config) { c.CommandWait = 200 * time.Millisecond })
		h.stickDM()
		h.say("hello")
		h.awaitText(h.dm.ID, "Answer: hello")
		h.say("/planmode on")
		h.say("next") // waits behind the command, in order
		h.awaitText(h.dm.ID, "It applies when the session next starts (context deadline exceeded)")
		h.awaitText(h.dm.ID, "Answer: next")
		msgs := h.messages(h.dm.ID)
		mode, next := -1, -1
		for i, m := range msgs {
			if strings.Contains(m, "Plan mode: on") && mode < 0 {
				mode = i
			}
			if strings.Contains(m, "Answer: next") {
				next = i
			}
		}
		if mode < 0 || next < mode {
			t.Errorf("the message sent after /planmode ran before it was done: %q", msgs)
		}
	})
}

func TestStuckTypedAnswerStallsOnlyItsChat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ask := askReq(t, "q9", question{q: "Release name?", header: "Name", options: []string{"v1", "v2"}})
		h := newHarness(t, func(tr *enginetest.Turn) {
			if !strings.Contains(tr.Prompt, "release") {
				echoScript(tr)
				return
			}
			tr.Start("m")
			d := tr.Ask(ask)
			tr.Complete("tool " + decisionWord(d))
		})
		h.stickDM()
		h.say("release")
		prompt := h.awaitPrompt(h.dm.ID, "Other", "Release name?")
		h.toast(h.press(h.user, h.dm, prompt, "Other"))
		h.tg.Await(wait, "the prompt to ask for a typed answer", func() bool {
			m, _ := h.tg.Message(h.dm.ID, prompt.ID)
			return !strings.Contains(m.Text, "Release name?") || strings.Contains(m.Text, "answer")
		})
		h.say("v3-final") // taken as the answer; the CLI never reads it
		g := h.group()
		h.tg.SendMessage(h.user, g, "@"+h.tg.Bot().Username+" still working?")
		h.awaitText(g.ID, "Answer: still working?")
	})
}
