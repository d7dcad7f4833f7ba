package chat

import (
	"context"
	"errors"
	"time"

	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/engine"
)

// The stall watchdog of a turn. A tool that hangs (an MCP server that does
// not answer, a git push waiting for a password) leaves the progress
// message saying "working" forever. When Claude has said nothing for
// [progress] stall_after while a tool runs, the progress message says what
// has been running for how long, and the chat gets one question with Keep
// waiting and Cancel. A tool whose processes use the CPU (a build, tests)
// is busy, not stuck: the progress says so and nobody is asked. A turn
// waiting for an approval is not stalled either: it waits for the owner.

// errNoCPU: the live Conn offers no engine.CPUMeter, so the CPU time is
// never known and a quiet tool is taken for a stalled one.
var errNoCPU = errors.New("the session offers no CPU meter")

// busyShare is the share of the time since the last look that a process
// tree must have used the CPU to count as busy. An idle CLI waiting on a
// tool uses about 2.5% (docs/protocol.md); a build uses a core or more.
const busyShare = 0.10

// DefaultStallAfter is [progress] stall_after's default.
const DefaultStallAfter = 3 * time.Minute

// stallWatch is one turn's watchdog; the session's goroutine owns it. Reading
// /proc costs a walk over every process, so it is never done per event:
// the watchdog looks at the CPU time a little before stall_after (primed)
// and again at stall_after, and compares.
type stallWatch struct {
	timer  *time.Timer // fires to prime, then at stall_after after the news; nil: off
	news   time.Time   // the last event from Claude
	primed bool        // the CPU time was read in this quiet spell
	// The tree's CPU time at the last look, and when; ok false: unknown.
	cpu   time.Duration
	cpuAt time.Time
	cpuOK bool
	stall *turnstate.Stall // the stall being shown, For counted from news
	asked bool             // the frontend was asked about this stall
}

// cpuWindow is how long before stall_after the CPU time is first read:
// the busy share is measured over it.
func (t *turn) cpuWindow() time.Duration { return min(t.a.c.cfg.StallAfter/6, 30*time.Second) }

// startWatch arms the watchdog for a turn whose prompt Claude has.
func (t *turn) startWatch() {
	after := t.a.c.cfg.StallAfter
	if after <= 0 {
		return
	}
	t.watch.news = time.Now()
	t.watch.timer = time.NewTimer(after - t.cpuWindow())
}

// watchC fires when Claude has been quiet for stall_after; nil when off.
func (t *turn) watchC() <-chan time.Time {
	if t.watch.timer == nil {
		return nil
	}
	return t.watch.timer.C
}

// heard is news from Claude: whatever stalled went on.
func (t *turn) heard(ev engine.Event) {
	w := &t.watch
	if w.timer == nil {
		return
	}
	w.news = time.Now()
	if w.stall != nil {
		w.stall = nil
		t.v.Refresh(true)
	}
	switch ev.(type) {
	case engine.TurnCompleted, engine.Exited:
		return // the turn ends: endWatch says so
	}
	if w.asked {
		t.v.Unstalled(true)
		w.asked = false
	}
	w.primed, w.cpuOK = false, false
	w.timer.Reset(t.a.c.cfg.StallAfter - t.cpuWindow())
}

// endWatch stops the watchdog when the turn ends.
func (t *turn) endWatch() {
	w := &t.watch
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.asked {
		t.v.Unstalled(false)
		w.asked = false
	}
}

// sampleCPU looks at the CPU time of Claude's process tree and tells
// whether it grew by busyShare of the time since the last look.
func (t *turn) sampleCPU(ctx context.Context) (busy bool) {
	a, w := t.a, &t.watch
	now := time.Now()
	var cpu time.Duration
	err := errNoCPU
	if m, ok := a.liveConn().(engine.CPUMeter); ok {
		cpu, err = m.TreeCPU(ctx)
	}
	if err != nil {
		a.c.log.Debug("could not read the CPU time of claude's processes", "chat_id", a.place.ChatID, "err", err)
	}
	if err == nil && w.cpuOK {
		busy = float64(cpu-w.cpu) >= busyShare*float64(now.Sub(w.cpuAt))
	}
	w.cpu, w.cpuAt, w.cpuOK = cpu, now, err == nil
	return busy
}

// checkStall runs when the watchdog's timer fires: first to read the CPU
// time shortly before stall_after, then at stall_after and every
// stall_after after that while Claude stays quiet.
func (t *turn) checkStall(ctx context.Context) {
	a, b, w := t.a, t.a.c, &t.watch
	window := t.cpuWindow()
	tool := t.runningTool()
	// The broker knows whether a request waits; the turn's state says
	// "waiting" until the next event, also once the owner answered.
	if tool == nil || len(b.broker.Pending(a.key)) > 0 {
		// Claude thinks, or waits for the owner: not a stalled tool. Look
		// again soon: an approval answered starts its tool without news.
		w.primed = false
		w.timer.Reset(window)
		return
	}
	if !w.primed { // read the CPU time now, compare at stall_after
		w.primed = true
		t.sampleCPU(ctx)
		w.timer.Reset(max(time.Until(w.news.Add(b.cfg.StallAfter)), window))
		return
	}
	busy := t.sampleCPU(ctx)
	w.timer.Reset(b.cfg.StallAfter)
	w.stall = &turnstate.Stall{Kind: tool.Kind, Title: tool.Title, Busy: busy}
	t.v.Refresh(true)
	b.log.Info("no news from claude while a tool runs", "chat_id", a.place.ChatID, "session_key", a.key,
		"tool", tool.Title, "quiet", time.Since(w.news), "busy", busy)
	if busy || w.asked {
		return
	}
	w.asked = true
	t.v.Stalled(*w.stall, w.news)
}

// runningTool is the newest action still running, nil if none.
func (t *turn) runningTool() *turnstate.Action { return t.st.Running() }

// stallNote is the progress line of the stall, nil if none.
func (t *turn) stallNote() *turnstate.Stall {
	if t.watch.stall == nil {
		return nil
	}
	s := *t.watch.stall
	s.For = time.Since(t.watch.news)
	return &s
}
