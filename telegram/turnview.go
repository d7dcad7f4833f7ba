package telegram

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/telegram/view"
)

// heartbeat refreshes the elapsed time of a quiet turn (a long command).
const heartbeat = 30 * time.Second

// progressHoldMax bounds how long a draft showing the answer being written
// holds the progress message back after ProgressDelay.
const progressHoldMax = 5 * time.Second

// tgTurn shows one turn in Telegram (chat.TurnSurface): its progress
// message, the draft or typing while Claude writes, its prompts, the
// notices waiting for its outcome and its answer. The core calls it on the
// turn's goroutine; its timers only wake that goroutine (Wake), which then
// does the work (Woken), so nothing here runs beside the turn.
type tgTurn struct {
	b       *Bot
	key     string
	place   place
	msgID   int // the message the turn answers
	info    chat.TurnInfo
	started time.Time
	adopted bool
	stopped atomic.Bool // stopped from its draft: what was written stays (stopdraft.go)
	cancelT string      // callback token of the cancel button

	mu sync.Mutex // guards notices: /cancel and /new run on the router
	// notices are replies to /cancel and /new waiting for the turn's
	// outcome (notice.go).
	notices []turnNotice
	// queuedNote is the prompt's "Queued" notice: the progress message
	// is an edit of it, when it was delivered (notice.go).
	queuedNote *notice

	// The progress message is sent only once the turn has run for
	// Config.ProgressDelay, or when a prompt needs it (see sendProgress);
	// its id comes on progressCh.
	progressID   int
	rendered     string
	lastEdit     time.Time
	dirty        bool
	progressCh   chan int
	progressSent bool
	progressGot  bool
	live         *streamer // activity and Claude's text as it is written
	lastDelta    time.Time // when a draft last got new text
	undelivered  bool      // the bot stopped before the answer went out
	fromVoice    bool      // the prompt was a recording (its answer may be spoken: speak.go)
	keptPrompts  []int     // prompts of the previous bot process asked again (held.go)
	ask          *stallAsk // the question about a stalled tool, if one was sent

	// The timers: each sets its flag and wakes the turn's goroutine.
	// editAt is when the edit timer was last set for: a fire from before
	// a later schedule is stale, as a timer's value is after a Reset.
	wake                      chan struct{}
	showT, editT, beatT       *time.Timer
	showDue, editDue, beatDue atomic.Bool
	editAt                    time.Time
}

// StartTurn begins showing a turn: a draft's "Thinking…" or "typing…" at
// once; its progress message waits (chat.Surface).
func (s *surface) StartTurn(ts chat.TurnStart) chat.TurnSurface {
	b := s.b
	pl := ts.Place
	t := &tgTurn{b: b, key: ts.Key, place: pl, msgID: ts.MessageID, info: ts.Turn, started: ts.Started,
		adopted: ts.Adopted, progressCh: make(chan int, 1), wake: make(chan struct{}, 1)}
	t.cancelT = b.cancels.add(cancelRef{key: ts.Key, chatID: pl.ChatID})
	if ts.Adopted {
		t.progressID = s.liveProgress(ts.Key)
		t.progressSent, t.progressGot = t.progressID != 0, t.progressID != 0
	} else {
		t.queuedNote = s.takeNote(pl, ts.MessageID)
	}
	t.live = b.startStreamer(pl, b.streamMode(ts.Key, pl), b.draftIDs.For(pl.ChatID, ts.MessageID))
	return t
}

// liveProgress is the progress message a previous bot process recorded
// for the turn of key that goes on, 0 if none.
func (s *surface) liveProgress(key string) int {
	live, err := s.b.store.ListLive()
	if err != nil {
		s.b.log.Warn("could not read live messages", "session_key", key, "err", err)
		return 0
	}
	id := 0
	for _, l := range live {
		if l.SessionKey == key && l.Kind == prefs.LiveProgress {
			id = l.MessageID
		}
	}
	return id
}

func (t *tgTurn) Wake() <-chan struct{} { return t.wake }

// arm starts the timers, once: the progress message after ProgressDelay
// from the turn's start, the heartbeat; the edit timer waits for schedule.
func (t *tgTurn) arm() {
	if t.showT != nil {
		return
	}
	t.showT = time.AfterFunc(max(0, t.b.cfg.ProgressDelay-time.Since(t.started)), func() { t.due(&t.showDue) })
	t.editT = time.AfterFunc(time.Hour, func() { t.due(&t.editDue) })
	t.editT.Stop()
	t.beatT = time.AfterFunc(heartbeat, func() { t.due(&t.beatDue) })
}

func (t *tgTurn) due(flag *atomic.Bool) {
	flag.Store(true)
	signal(t.wake)
}

// Woken does what the timers and the progress message's id ask for.
func (t *tgTurn) Woken(ctx context.Context) {
	if t.showDue.Swap(false) {
		if hold := t.draftHold(); hold > 0 && !t.progressSent && time.Since(t.started) < t.b.cfg.ProgressDelay+progressHoldMax {
			// A draft shows Claude writing, no tool runs: the answer is
			// likely about to follow, and a progress message now would
			// only make it wait for the chat's window. Again once the
			// draft has been still for an edit interval — but a long
			// answer still gets its progress message (and its Cancel
			// button) progressHoldMax later.
			t.showT.Reset(min(hold, max(0, t.b.cfg.ProgressDelay+progressHoldMax-time.Since(t.started))))
		} else {
			t.sendProgress(ctx)
		}
	}
	if t.progressSent && !t.progressGot {
		select {
		case id := <-t.progressCh:
			t.gotProgress(id)
		default:
		}
	}
	if t.editDue.Swap(false) && !time.Now().Before(t.editAt) {
		t.flush() // held back by a draft: later (schedule)
	}
	if t.beatDue.Swap(false) {
		t.dirty = true
		t.beatT.Reset(heartbeat)
	}
	t.schedule()
}

// Refresh marks the view changed (changed) and arms the edit for it.
func (t *tgTurn) Refresh(changed bool) {
	if changed {
		t.dirty = true
	}
	t.arm()
	t.schedule()
}

// Stop ends whatever still shows the turn as running: timers, the draft,
// the Cancel button's token.
func (t *tgTurn) Stop() {
	for _, tm := range []*time.Timer{t.showT, t.editT, t.beatT} {
		if tm != nil {
			tm.Stop()
		}
	}
	t.live.stop()
	t.b.cancels.remove(t.cancelT)
}

// Inputs downloads the prompt's files into the session's upload folder
// and transcribes a recording; its text then says where the files are.
func (t *tgTurn) Inputs(ctx context.Context, qp prefs.QueuedPrompt) (prefs.QueuedPrompt, error) {
	b := t.b
	if hasRecording(qp.Files) {
		heard, err := b.withVoice(ctx, t.place, qp)
		if err != nil {
			return qp, &inputError{view: b.voiceErrorView(err), err: err}
		}
		qp = heard
		t.fromVoice = true
	}
	if len(qp.Files) > 0 {
		text, err := b.withFiles(ctx, qp)
		if err != nil {
			return qp, &inputError{view: view.DownloadFailed(err.Error()), err: err}
		}
		qp.Text = text
	}
	return qp, nil
}

// inputError is a prompt whose files could not be made ready, with what
// the chat is told.
type inputError struct {
	view view.TurnError
	err  error
}

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// AgentText maps a menu name of one of Claude Code's commands back to its
// own (claudecmds.go).
func (t *tgTurn) AgentText(ctx context.Context, machine, dir, text string) string {
	return t.b.commandPrompt(ctx, chat.Dir{Machine: machine, Path: dir}, text)
}

// Streamed adds the text block Claude is writing, so far.
func (t *tgTurn) Streamed(text string) {
	if t.live == nil || !t.live.show {
		return
	}
	t.live.setText(text)
	if t.live.editing() {
		t.dirty = true
		return
	}
	// A draft shows Claude at work: the progress message keeps still
	// meanwhile (see draftHold), leaving the chat's budget to the answer.
	t.lastDelta = time.Now()
}

// ActionsChanged: the action list changes, the progress message shows it.
func (t *tgTurn) ActionsChanged() { t.lastDelta = time.Time{} }

// Pause stops drafts while a prompt waits for the owner.
func (t *tgTurn) Pause(on bool) { t.live.pause(on) }

// WaitingForSlot says the turn waits for a Claude slot.
func (t *tgTurn) WaitingForSlot(max int) { t.waitNotice(view.WaitingForSlot(max)) }

// StartDelayed shows the turn's first sign now: its Claude waits for
// others to start, and the placeholder's usual delay (thinkingDelay) is
// for answers that may come before it, which this one will not.
func (t *tgTurn) StartDelayed() { t.live.signNow() }

// WaitingToStart says the turn's Claude waits its turn to start.
func (t *tgTurn) WaitingToStart(ahead int) { t.waitNotice(view.WaitingToStart(ahead)) }

// AutoDenied tells the chat a request the rules refused.
func (t *tgTurn) AutoDenied(reason, message string) {
	t.b.api.notify(t.place, t.progressID, view.AutoNotice(reason, message))
}

// Prompt shows an approval prompt, as a reply to the progress message,
// which must exist first: it carries Cancel and says the turn waits.
func (t *tgTurn) Prompt(ctx context.Context, p *approvals.Prompt) {
	t.dirty = true
	t.live.pause(true) // no draft over the prompt
	t.awaitProgress(ctx)
	t.showPrompt(ctx, p)
	// The prompt says the turn waits: the progress message says so an
	// interval later, which a quick press makes unnecessary, so the answer
	// it lets through finds the chat's window free.
	t.lastEdit = time.Now()
}

// Stalled asks once whether to keep waiting for a quiet tool.
func (t *tgTurn) Stalled(s turnstate.Stall, since time.Time) {
	t.ask = t.askStall(s, since)
}

// Unstalled settles the stall question: Claude went on (moved), or the
// turn ended.
func (t *tgTurn) Unstalled(moved bool) {
	if t.ask == nil {
		return
	}
	how := view.StallTurnOver
	if moved {
		how = view.StallMovedOn
	}
	t.ask.settle(how, "")
	t.ask = nil
}

// progressWait bounds the wait, as the bot stops, for a progress message
// already on its way: its record must name it, or the next start would
// send another and leave this one saying "working" for ever.
const progressWait = 5 * time.Second

// Leave ends the turn's part in this bot process while Claude goes on.
func (t *tgTurn) Leave() {
	t.live.stop()
	if t.progressSent && !t.progressGot {
		select {
		case id := <-t.progressCh:
			t.gotProgress(id)
		case <-time.After(progressWait):
		}
	}
}

// signal wakes whoever waits on ch (capacity 1), without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
