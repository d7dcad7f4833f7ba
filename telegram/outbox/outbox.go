// Package outbox is the one place through which the bot talks to the
// Telegram Bot API. It paces calls to stay inside Telegram's limits (per
// chat, per group, global), orders them by priority, coalesces superseded
// edits ("latest wins"), honours 429 retry_after per chat and retries
// transient failures with backoff.
//
// A job is a closure performing one Bot API call; the outbox never sees what
// is being sent, and never logs job contents.
//
// Scheduling: within a chat, jobs run one at a time, higher priority first,
// FIFO within a priority. Across chats, the chat whose next job has the
// highest priority (then the oldest) goes first when several are ready.
// Unpaced jobs (answerCallbackQuery) bypass the chat queues and only wait for
// the global limiter and a free worker; Low unpaced jobs (answers nobody is
// waiting for: presses from strangers) run one at a time, only when no other
// job is ready, so they can never delay a chat's messages by more than one
// call. Calls run on short-lived goroutines
// bounded by Options.MaxInFlight; an idle chat costs no goroutine.
//
// Drafts and chat actions (Job.Action) are typing notifications to Telegram,
// not messages: they run in a lane of their own per chat, paced by their own
// window (ActionBurst per ActionPeriod) and the global limit, so a draft
// never waits for the chat's message window and never spends it.
//
// Budgets: the per-chat and per-group limits are exact sliding windows, like
// Telegram's, and a call counts in them from the moment its answer arrives
// (the latest moment Telegram can have counted it), so jitter never adds a
// call to Telegram's window that ours did not see. Every priority obeys the
// windows; Low jobs also leave a reserve in them (ChatReserve, GroupReserve)
// and are spread over a group's minute (GroupBurst), so progress edits can
// never use up the budget an answer, a prompt or a progress message needs.
package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Priority orders jobs within a chat. The zero value is Normal.
type Priority int

const (
	Low    Priority = -1 // progress edits
	Normal Priority = 0  // plain sends: notices, command replies
	High   Priority = 1  // approval prompts, final answers
)

const numPriorities = 3

func (p Priority) index() int { return int(p) + 1 }

func (p Priority) String() string {
	switch p {
	case Low:
		return "low"
	case Normal:
		return "normal"
	case High:
		return "high"
	}
	return fmt.Sprintf("priority(%d)", int(p))
}

var (
	// ErrClosed: the outbox was closed (or is draining) before the job was delivered.
	ErrClosed = errors.New("outbox: closed")
	// ErrSuperseded: a newer job with the same key replaced this one before it ran.
	ErrSuperseded = errors.New("outbox: superseded by a newer job with the same key")
	// ErrDropped: the job was removed by Drop before it ran.
	ErrDropped = errors.New("outbox: dropped")
	// ErrInvalidJob: the job has no Do function or an unknown priority.
	ErrInvalidJob = errors.New("outbox: invalid job")
)

// Job is one Bot API call and how to schedule it.
type Job struct {
	// ChatID selects the pacing budget; negative ids are groups/channels.
	ChatID int64
	// Priority within the chat.
	Priority Priority
	// Key, if set, makes the job coalescible: a later job with the same key
	// replaces this one while it is still queued. Keys are global, so
	// include the chat, e.g. "edit:<chat>:<msg>".
	Key string
	// Unpaced jobs count only toward the global limit (answerCallbackQuery:
	// not a chat message, must not wait behind progress edits). They go
	// before all paced work, FIFO, unless their Priority is Low: those go
	// after every job that is ready, one at a time (background work).
	Unpaced bool
	// Action marks a draft or a chat action (sendMessageDraft,
	// sendChatAction): it runs in the chat's action lane, paced by the
	// action window and the global limit, not by the message windows.
	Action bool
	// Do performs the call. It may run more than once (retries); ctx is
	// cancelled by Close, by the Send context, or by Options.CallTimeout.
	// It must not panic: it runs on an outbox goroutine.
	Do func(ctx context.Context) error
	// OnDone, if set, receives the final result exactly once (nil on
	// success, including "message is not modified"). It runs on an outbox
	// goroutine with no locks held; keep it short.
	OnDone func(err error)
}

// Options configure an Outbox. Zero fields take the defaults; a negative
// duration or limit disables that limiter (for tests and benchmarks).
type Options struct {
	// A chat gets at most ChatBurst calls in any window of ChatBurst ×
	// ChatInterval (default 3 in 3s: one a second on average, three back to
	// back after a quiet spell, so a final's parts need not wait).
	ChatInterval time.Duration // default 1s
	ChatBurst    int           // default 3
	// A chat gets at most ActionBurst drafts and chat actions in any
	// ActionPeriod (default 3 in 1s), apart from its messages.
	ActionPeriod time.Duration
	ActionBurst  int
	// ChatReserve is how many calls of that window Low jobs (progress
	// edits) leave unused, so an answer or a prompt can always go at once;
	// default 1. GroupReserve is the same for a group's minute budget;
	// default 8: what a turn's end and the next one's start need (answer
	// parts, the next progress message, an approval prompt and its outcome).
	// In a group, Low leaves more if the last minute held more calls of
	// other priorities: a busy group's answers come before its edits.
	ChatReserve    int
	GroupReserve   int
	GroupPerMinute int // hard cap per group chat in any 60s window; default 20
	GroupBurst     int // back-to-back Low calls a group may spend its budget on; default 3
	// GlobalPerSecond: calls per second over all chats, strictly spaced;
	// default 28, under Telegram's ~30/s for messages with room for jitter
	// (it also counts answerCallbackQuery, which Telegram does not).
	GlobalPerSecond int
	MaxInFlight     int           // concurrent calls; default 8
	CallTimeout     time.Duration // bound on one attempt; default 30s (a timeout is retried)
	BackoffMin      time.Duration // first transient-error retry delay; default 500ms
	BackoffMax      time.Duration // cap on the retry delay; default 30s
	Logger          *slog.Logger  // default slog.Default()
}

func (o Options) withDefaults() Options {
	setDur := func(v *time.Duration, def time.Duration) {
		if *v == 0 {
			*v = def
		}
	}
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setDur(&o.ChatInterval, time.Second)
	setInt(&o.ChatBurst, 3)
	setDur(&o.ActionPeriod, time.Second)
	setInt(&o.ActionBurst, 3)
	setInt(&o.ChatReserve, 1)
	setInt(&o.GroupReserve, 8)
	setInt(&o.GroupPerMinute, 20)
	setInt(&o.GroupBurst, 3)
	setInt(&o.GlobalPerSecond, 28)
	setInt(&o.MaxInFlight, 8)
	setDur(&o.CallTimeout, 30*time.Second)
	setDur(&o.BackoffMin, 500*time.Millisecond)
	setDur(&o.BackoffMax, 30*time.Second)
	o.ChatBurst = max(o.ChatBurst, 1)
	o.ActionBurst = max(o.ActionBurst, 1)
	o.GroupBurst = max(o.GroupBurst, 1)
	// A reserve can hold back at most all but one call of its window.
	o.ChatReserve = min(max(o.ChatReserve, 0), o.ChatBurst-1)
	o.GroupReserve = min(max(o.GroupReserve, 0), max(o.GroupPerMinute-1, 0))
	o.MaxInFlight = max(o.MaxInFlight, 1)
	o.BackoffMin = max(o.BackoffMin, time.Millisecond)
	o.BackoffMax = max(o.BackoffMax, o.BackoffMin)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Stats is a snapshot of counters since New.
type Stats struct {
	Sent       uint64             // jobs delivered (including "not modified" edits)
	Failed     uint64             // jobs ended with a non-retryable error
	Retried    uint64             // retry attempts scheduled (429 and transient)
	TooMany    uint64             // 429 responses seen
	Superseded uint64             // queued jobs replaced by a newer version with the same key
	Dropped    uint64             // queued jobs removed by Drop or an abandoned Send
	Queued     [numPriorities]int // paced jobs waiting, indexed Low, Normal, High
	Unpaced    int                // unpaced jobs waiting (Low ones included)
	InFlight   int                // calls running now
	Chats      int                // chat lanes (messages, actions) with pacing state in memory
}

// QueuedAt returns the number of paced jobs waiting at priority p.
func (s Stats) QueuedAt(p Priority) int {
	if p.index() < 0 || p.index() >= numPriorities {
		return 0
	}
	return s.Queued[p.index()]
}

// Enqueue schedules j and returns a channel that receives its final result
// once (buffered; it may be ignored). A job whose Key matches a queued job
// replaces it (see Replace).
func (o *Outbox) Enqueue(j Job) <-chan error {
	res := make(chan error, 1)
	o.submit(context.Background(), j, res) // no caller to outlive: Enqueue is fire and forget
	return res
}

// Send schedules j and waits for its final result. If ctx ends first, Send
// returns ctx.Err(); the job is removed if still queued, or its running call
// is cancelled.
func (o *Outbox) Send(ctx context.Context, j Job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	res := make(chan error, 1)
	jb := o.submit(ctx, j, res)
	select {
	case err := <-res:
		return err
	case <-ctx.Done():
		if jb != nil {
			o.abandon(jb, res, ctx.Err())
		}
		return ctx.Err()
	}
}

// Replace schedules a coalescible job, fire and forget. If a job with the
// same Key is still queued, its Do and OnDone are swapped for j's in place
// (it keeps its queue position; its former OnDone gets ErrSuperseded). If
// j's priority is higher, the job moves to the back of that priority. If the
// keyed job is already running, j is queued behind it; two versions never run
// at once. An empty Key makes Replace a plain non-blocking Enqueue.
func (o *Outbox) Replace(j Job) {
	o.submit(context.Background(), j, nil)
}

// Drop removes the queued job with this key, which then ends with ErrDropped.
// A job already running is not affected. It reports whether a job was removed.
func (o *Outbox) Drop(key string) bool {
	if key == "" {
		return false
	}
	o.mu.Lock()
	j, ok := o.keys[key]
	if !ok || j.state != stateQueued {
		o.mu.Unlock()
		return false
	}
	o.unqueue(j)
	o.stats.Dropped++
	o.checkDrained()
	o.mu.Unlock()
	j.finish(ErrDropped)
	return true
}

// Stats returns a snapshot of the counters and queue lengths.
func (o *Outbox) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.stats
	s.InFlight = o.inflight
	s.Unpaced = len(o.unpaced) + len(o.background)
	s.Chats = len(o.chats)
	return s
}

// Drain stops accepting jobs (new ones end with ErrClosed), keeps sending
// until everything queued or running is done or ctx ends, then closes the
// outbox. It returns an error wrapping ctx.Err() if jobs were still pending,
// or ErrClosed if Close was called meanwhile.
func (o *Outbox) Drain(ctx context.Context) error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		o.Close()
		return nil
	}
	o.draining = true
	for _, c := range o.chats {
		o.reschedule(c) // low jobs need no reserve from now on
	}
	o.wake()
	o.checkDrained()
	done := o.drained
	o.mu.Unlock()

	var err error
	select {
	case <-done:
		o.mu.Lock()
		if !o.drainClean {
			err = ErrClosed // Close was called while draining
		}
		o.mu.Unlock()
	case <-ctx.Done():
		err = fmt.Errorf("outbox drain: %w", ctx.Err())
	}
	o.Close()
	return err
}

// Close stops the outbox at once: queued jobs end with ErrClosed, running
// calls are cancelled (and end with an error wrapping ErrClosed unless they
// succeed anyway). It waits for all outbox goroutines. Safe to call twice.
func (o *Outbox) Close() {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		o.wg.Wait()
		return
	}
	o.closed = true
	if !o.drainDone { // release a Drain waiting concurrently
		o.drainDone = true
		close(o.drained)
	}
	var pending []*job
	pending = append(pending, o.unpaced...)
	pending = append(pending, o.background...)
	o.unpaced, o.background = nil, nil
	for _, c := range o.chats {
		for p := range c.q {
			pending = append(pending, c.q[p]...)
			c.q[p] = nil
		}
	}
	for _, j := range pending {
		j.state = stateDone
		if j.Key != "" && o.keys[j.Key] == j {
			delete(o.keys, j.Key)
		}
	}
	o.stats.Queued = [numPriorities]int{}
	o.mu.Unlock()

	o.cancel()
	for _, j := range pending {
		j.finish(ErrClosed)
	}
	o.wg.Wait()
}

// Delay is how long a High job queued now for chatID's messages would wait
// for the chat's limits (its window, a 429 pause, a group's minute) before
// it could run: zero when it could go at once. Jobs already queued ahead of
// it make it later still. A turn whose answer must wait shows the answer as
// a draft meanwhile, which no message window counts.
func (o *Outbox) Delay(chatID int64) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.chats[chatKey{id: chatID}]
	if !ok {
		return 0
	}
	t := c.pausedUntil
	if c.win != nil {
		t = later(t, c.win.next(c.period))
	}
	if c.group != nil {
		t = later(t, c.group.win.next(time.Minute))
	}
	return max(0, time.Until(t))
}
