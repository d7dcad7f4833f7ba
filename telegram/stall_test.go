package telegram_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/tgtest"
)

// fakeCPU stands for /proc: a busy tree uses one core all the time, an
// idle one nothing. It records the pids it was asked about.
type fakeCPU struct {
	mu   sync.Mutex
	busy bool
	used time.Duration
	last time.Time
	pids map[int]bool
}

func (f *fakeCPU) TreeCPU(_ context.Context, pid int) (time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if f.busy && !f.last.IsZero() {
		f.used += now.Sub(f.last)
	}
	f.last = now
	if f.pids == nil {
		f.pids = map[int]bool{}
	}
	f.pids[pid] = true
	return f.used, nil
}

func (f *fakeCPU) asked(pid int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pids[pid]
}

// stallScript runs "make build", which says nothing until gate closes or
// the turn is interrupted.
func stallScript(gate chan struct{}) enginetest.Script {
	return func(tr *enginetest.Turn) {
		tr.Start("m")
		tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "make build"})
		select {
		case <-gate:
			tr.Emit(engine.ActionCompleted{ToolUseID: "t1", OK: true, Detail: "built"})
			tr.Complete("built it")
		case <-tr.Interrupted():
			tr.Aborted()
		}
	}
}

func stallHarness(t *testing.T, cpu *fakeCPU, gate chan struct{}) *harness {
	h := newHarness(t, stallScript(gate))
	h.eng.setCPU(cpu)
	return h
}

// startBuild sends the prompt and returns the progress message once it
// shows the running tool.
func (h *harness) startBuild() tgtest.Message {
	h.t.Helper()
	id := h.say("build it")
	return h.tg.AwaitMessage(wait, h.dm.ID, func(m tgtest.Message) bool {
		return m.ReplyTo == id && strings.Contains(m.Text, "make build")
	})
}

// awaitEdited waits until message id of the DM says want.
func (h *harness) awaitEdited(id int, want string) tgtest.Message {
	h.t.Helper()
	var got tgtest.Message
	h.tg.Await(wait, "message "+want, func() bool {
		m, ok := h.tg.Message(h.dm.ID, id)
		got = m
		return ok && strings.Contains(m.Text, want)
	})
	return got
}

func (h *harness) count(want string) int {
	n := 0
	for _, txt := range h.messages(h.dm.ID) {
		if strings.Contains(txt, want) {
			n++
		}
	}
	return n
}

// A tool that says nothing for stall_after (3 minutes by default) while
// its processes sit idle: the progress message says what has been running
// for how long, and one question offers Keep waiting and Cancel. It is not
// asked again; Keep waiting settles it; the turn goes on when the tool does.
func TestStallIdleToolAsksOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		cpu := &fakeCPU{}
		h := stallHarness(t, cpu, gate)
		started := time.Now() // the tool starts at once; its progress message comes a second later
		prog := h.startBuild()

		time.Sleep(time.Until(started.Add(3*time.Minute - time.Second)))
		synctest.Wait()
		if n := h.count("Is it stuck?"); n != 0 {
			t.Fatalf("asked before stall_after passed")
		}
		time.Sleep(2 * time.Second)
		q := h.awaitText(h.dm.ID, "Is it stuck?")
		if !strings.Contains(q.Text, "💻 make build has been running for 3 minutes with no news and no CPU use") {
			t.Errorf("question: %q", q.Text)
		}
		if len(q.Keyboard) != 1 || len(q.Keyboard[0]) != 2 || q.Keyboard[0][0].Text != "⏳ Keep waiting" ||
			q.Keyboard[0][1].Text != "✖ Cancel" || q.Keyboard[0][1].CallbackData != prog.Keyboard[0][0].CallbackData {
			t.Errorf("question keyboard %+v (progress's Cancel is %q)", q.Keyboard, prog.Keyboard[0][0].CallbackData)
		}
		h.awaitEdited(prog.ID, "⚠️ 💻 make build — no news for 3 minutes, and no CPU use")
		if !cpu.asked(h.eng.session(0).Pid()) {
			t.Error("the CPU time of the session's process was not read")
		}

		time.Sleep(10 * time.Minute) // still nothing: the progress counts on, no second question
		synctest.Wait()
		h.awaitEdited(prog.ID, "no news for 13 minutes")
		if n := h.count("Is it stuck?"); n != 1 {
			t.Errorf("%d questions for one stall, want 1", n)
		}

		cq := h.tg.PressButton(h.user, h.dm, q.ID, q.Keyboard[0][0].CallbackData)
		h.tg.Await(wait, "the press answered", func() bool { a, ok := h.tg.CallbackAnswer(cq); return ok && a.Text == "Keeping on waiting" })
		settled := h.awaitEdited(q.ID, "⏳ Keeping on waiting (@ada).")
		if len(settled.Keyboard) != 0 {
			t.Errorf("the settled question keeps its buttons: %+v", settled.Keyboard)
		}

		close(gate)
		h.awaitText(h.dm.ID, "built it")
		if m, _ := h.tg.Message(h.dm.ID, q.ID); !strings.Contains(m.Text, "Keeping on waiting") {
			t.Errorf("the question after the turn: %q", m.Text)
		}
	})
}

// A busy tool (its processes use the CPU) is not stuck: the progress says
// it runs and is busy, nobody is asked.
func TestStallBusyToolIsNotAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := stallHarness(t, &fakeCPU{busy: true}, gate)
		prog := h.startBuild()
		time.Sleep(3*time.Minute + time.Second)
		h.awaitEdited(prog.ID, "💻 make build — running for 3 minutes, busy")
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := h.count("Is it stuck?"); n != 0 {
			t.Errorf("a busy tool was asked about %d times", n)
		}
		close(gate)
		h.awaitText(h.dm.ID, "built it")
	})
}

// Cancel on the question cancels the turn; the question says the turn is
// over and loses its buttons.
func TestStallCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := stallHarness(t, &fakeCPU{}, make(chan struct{}))
		h.startBuild()
		time.Sleep(3*time.Minute + time.Second)
		q := h.awaitText(h.dm.ID, "Is it stuck?")
		cq := h.tg.PressButton(h.user, h.dm, q.ID, q.Keyboard[0][1].CallbackData)
		h.tg.Await(wait, "the press answered", func() bool { a, ok := h.tg.CallbackAnswer(cq); return ok && a.Text == "Cancelling…" })
		h.awaitText(h.dm.ID, "Cancelled")
		settled := h.awaitEdited(q.ID, "The turn is over.")
		if len(settled.Keyboard) != 0 {
			t.Errorf("the question keeps its buttons: %+v", settled.Keyboard)
		}
	})
}

// News from Claude ends the stall: the question says Claude went on.
func TestStallEndsWithNews(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		h := stallHarness(t, &fakeCPU{}, gate)
		prog := h.startBuild()
		time.Sleep(3*time.Minute + time.Second)
		q := h.awaitText(h.dm.ID, "Is it stuck?")
		close(gate)
		h.awaitText(h.dm.ID, "built it")
		h.awaitEdited(q.ID, "✓ Claude went on.")
		if m := h.awaitEdited(prog.ID, "✓ done"); strings.Contains(m.Text, "no news") {
			t.Errorf("the summary still shows the stall: %q", m.Text)
		}
	})
}

// A turn waiting for an approval waits for the owner, not for a tool:
// never a stall, however long.
func TestStallNotWhileAwaitingApproval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "rm -rf build"})
			d := tr.Ask(engine.ApprovalRequest{RequestID: "r1", ToolName: "Bash", ToolUseID: "t1", Input: []byte(`{"command":"rm -rf build"}`)})
			if d.Interrupted {
				tr.Aborted()
				return
			}
			tr.Complete("done")
		}, func(c *telegram.Config) { c.ApprovalWait = time.Hour })
		h.eng.setCPU(&fakeCPU{})
		h.say("clean")
		h.awaitText(h.dm.ID, "rm -rf build")
		time.Sleep(20 * time.Minute)
		synctest.Wait()
		if n := h.count("Is it stuck?"); n != 0 {
			t.Errorf("a turn waiting for approval was taken for a stall %d times", n)
		}
	})
}

// A tool the owner approved runs without news (the answer is no event):
// once it has been quiet for stall_after it is asked about like any other.
func TestStallAfterApprovalGranted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, func(tr *enginetest.Turn) {
			tr.Start("m")
			tr.Emit(engine.ActionStarted{ToolUseID: "t1", Tool: "Bash", Kind: "command", Title: "git push"})
			if d := tr.Ask(engine.ApprovalRequest{RequestID: "r1", ToolName: "Bash", ToolUseID: "t1", Input: []byte(`{"command":"git push"}`)}); d.Interrupted {
				tr.Aborted()
				return
			}
			select { // the push waits for a password forever
			case <-tr.Interrupted():
				tr.Aborted()
			case <-tr.Session().Done():
			}
		}, func(c *telegram.Config) { c.ApprovalWait = time.Hour })
		h.eng.setCPU(&fakeCPU{})
		h.say("push it")
		prompt := h.awaitPrompt(h.dm.ID, "Approve", "git push")
		time.Sleep(10 * time.Minute) // the owner answers late: not a stall meanwhile
		synctest.Wait()
		if n := h.count("Is it stuck?"); n != 0 {
			t.Fatalf("asked while the approval waited")
		}
		h.toast(h.press(h.user, h.dm, prompt, "Approve"))
		time.Sleep(time.Minute)
		q := h.awaitText(h.dm.ID, "Is it stuck?")
		if !strings.Contains(q.Text, "💻 git push has been running for 11 minutes") {
			t.Errorf("question %q", q.Text)
		}
	})
}
