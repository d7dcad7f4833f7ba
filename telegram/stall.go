package telegram

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
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

// defaultStallAfter is [progress] stall_after's default.
const defaultStallAfter = 3 * time.Minute

// stallWatch is one turn's watchdog; the actor goroutine owns it. Reading
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
	stall *view.Stall // the stall being shown, For counted from news
	ask   *stallAsk   // the question of this stall, if one was sent
}

// cpuWindow is how long before stall_after the CPU time is first read:
// the busy share is measured over it.
func (t *turn) cpuWindow() time.Duration { return min(t.a.b.cfg.StallAfter/6, 30*time.Second) }

// startWatch arms the watchdog for a turn whose prompt Claude has.
func (t *turn) startWatch() {
	after := t.a.b.cfg.StallAfter
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
		t.dirty = true
	}
	switch ev.(type) {
	case engine.TurnCompleted, engine.Exited:
		return // the turn ends: endWatch says so
	}
	if w.ask != nil {
		w.ask.settle(view.StallMovedOn, "")
		w.ask = nil
	}
	w.primed, w.cpuOK = false, false
	w.timer.Reset(t.a.b.cfg.StallAfter - t.cpuWindow())
}

// endWatch stops the watchdog when the turn ends.
func (t *turn) endWatch() {
	w := &t.watch
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.ask != nil {
		w.ask.settle(view.StallTurnOver, "")
		w.ask = nil
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
		a.b.log.Debug("could not read the CPU time of claude's processes", "chat_id", a.place.ChatID, "err", err)
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
	a, b, w := t.a, t.a.b, &t.watch
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
	w.stall = &view.Stall{Kind: tool.Kind, Title: tool.Title, Busy: busy}
	t.dirty = true
	b.log.Info("no news from claude while a tool runs", "chat_id", a.place.ChatID, "session_key", a.key,
		"tool", tool.Title, "quiet", time.Since(w.news), "busy", busy)
	if busy || w.ask != nil {
		return
	}
	w.ask = b.askStall(a.place, t.progressID, *w.stall, w.news, cancelData(t.cancelT))
}

// runningTool is the newest action still running, nil if none.
func (t *turn) runningTool() *view.Action { return t.st.Running() }

// stallNote is the progress line of the stall, nil if none.
func (t *turn) stallNote() *view.Stall {
	if t.watch.stall == nil {
		return nil
	}
	s := *t.watch.stall
	s.For = time.Since(t.watch.news)
	return &s
}

// stallAsk is one stall question: its message, which may still be on its
// way, and how it was settled. The turn settles it when Claude goes on or
// the turn ends; a Keep waiting press settles it from the router.
type stallAsk struct {
	b      *Bot
	chatID int64
	tok    string
	since  time.Time
	stall  view.Stall

	mu      sync.Mutex
	msgID   int
	settled bool
	text    string // the settled text
}

// askStall sends the question (off the actor goroutine: a slow Telegram
// must not hold the turn) and returns it.
func (b *Bot) askStall(p place, replyTo int, s view.Stall, since time.Time, cancel string) *stallAsk {
	q := &stallAsk{b: b, chatID: p.ChatID, since: since, stall: s}
	q.tok = b.stalls.add(q)
	s.For = time.Since(since)
	text, kb := view.StallText(s), view.StallKeyboard(prefixKeep+q.tok, cancel)
	go func() {
		ctx, stop := context.WithTimeout(b.baseCtx, time.Minute)
		defer stop()
		id, err := b.api.send(ctx, p, replyTo, text, kb, outbox.Normal)
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			b.log.Warn("could not ask about a stalled tool", "chat_id", p.ChatID, "err", err)
		}
		q.sent(id)
	}()
	return q
}

func (q *stallAsk) sent(id int) {
	q.mu.Lock()
	q.msgID = id
	text, settled := q.text, q.settled
	q.mu.Unlock()
	if settled && id != 0 {
		q.edit(id, text)
	}
}

// settle ends the question once: its buttons go, the text says how it
// ended. It reports false when it had ended already.
func (q *stallAsk) settle(how int, who string) bool {
	s := q.stall
	s.For = time.Since(q.since)
	q.mu.Lock()
	if q.settled {
		q.mu.Unlock()
		return false
	}
	q.settled, q.text = true, view.StallSettled(s, how, who)
	id, text := q.msgID, q.text
	q.mu.Unlock()
	q.b.stalls.remove(q.tok)
	if id != 0 {
		q.edit(id, text)
	}
	return true
}

func (q *stallAsk) edit(id int, text string) {
	_ = q.b.api.edit(context.Background(), q.chatID, id, text, nil, outbox.Normal, "", func(err error) {
		if err != nil && !errors.Is(err, outbox.ErrClosed) {
			q.b.log.Warn("could not update the stall question", "chat_id", q.chatID, "err", err)
		}
	})
}

// pressKeep is Keep waiting: the question is settled, the watchdog stays
// quiet about this stall (it asks once per stall anyway).
func (b *Bot) pressKeep(ctx context.Context, cq *models.CallbackQuery, chatID int64, tok string) {
	q, ok := b.stalls.get(tok)
	var chat int64
	if ok {
		chat = q.chatID
	}
	switch {
	case b.refusePress(ctx, cq, ok, chatID, chat, view.ToastExpired):
	case q.settle(view.StallKept, displayName(&cq.From)):
		b.api.answerCallback(ctx, cq.ID, view.ToastKeepWaiting)
	default:
		b.api.answerCallback(ctx, cq.ID, view.ToastExpired)
	}
}
