package outbox

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Outbox paces, orders and retries Bot API calls. Create it with New and
// stop it with Close (or Drain). All methods are safe for concurrent use.
type Outbox struct {
	opts           Options
	globalInterval time.Duration // strict spacing between any two calls; 0 = off
	groupInterval  time.Duration // steady spacing within a group's budget
	chatPeriod     time.Duration // length of a chat's window; 0 = off

	ctx    context.Context // cancelled by Close; parent of every call
	cancel context.CancelFunc
	wg     sync.WaitGroup // scheduler loop + running calls
	wakeCh chan struct{}

	mu         sync.Mutex
	closed     bool
	draining   bool
	drained    chan struct{} // closed once draining and nothing is left
	drainDone  bool
	drainClean bool // drained because the work was done, not because of Close
	seq        uint64
	chats      map[chatKey]*chatState
	keys       map[string]*job // coalescing key -> newest job with that key
	unpaced    []*job
	background []*job   // unpaced Low jobs: only when nothing else is ready
	bgInflight int      // background calls running (at most one)
	ready      chatHeap // chats that may call now, best head first
	waiting    chatHeap // chats with jobs that must wait, earliest first
	global     pacer
	inflight   int
	nextSweep  time.Time
	stats      Stats
}

type jobState int

const (
	stateQueued jobState = iota
	stateRunning
	stateDone
)

type job struct {
	Job
	ctx       context.Context // Send's context; nil for Enqueue/Replace
	res       chan error      // result for Enqueue/Send; nil for Replace
	chat      *chatState      // nil for unpaced jobs
	seq       uint64          // submission order, for FIFO across chats
	state     jobState
	attempts  int       // transient failures so far (drives the backoff)
	notBefore time.Time // earliest retry
}

// finish delivers the final result; called exactly once per submission.
func (j *job) finish(err error) {
	if j.OnDone != nil {
		j.OnDone(err)
	}
	if j.res != nil {
		j.res <- err
	}
}

// chatKey names a chat's lane: its messages, or its drafts and chat actions.
type chatKey struct {
	id     int64
	action bool
}

// chatState exists only while a chat has queued or running jobs, or pacing
// history that still matters; the sweep forgets it afterwards.
type chatState struct {
	key         chatKey
	q           [numPriorities][]*job
	running     bool
	pausedUntil time.Time // 429 retry_after
	win         *window   // nil when chat pacing is off
	period      time.Duration
	group       *groupLimits // nil for private chats
	heap        *chatHeap    // which heap holds the chat, if any
	idx         int
	eligibleAt  time.Time
}

type groupLimits struct {
	pace pacer   // spreads Low calls over the minute (every call is charged)
	win  *window // the hard per-minute budget
}

func (c *chatState) head() *job {
	for p := numPriorities - 1; p >= 0; p-- {
		if len(c.q[p]) > 0 {
			return c.q[p][0]
		}
	}
	return nil
}

func (c *chatState) popHead() *job {
	for p := numPriorities - 1; p >= 0; p-- {
		if len(c.q[p]) > 0 {
			j := c.q[p][0]
			c.q[p][0] = nil
			c.q[p] = c.q[p][1:]
			if len(c.q[p]) == 0 {
				c.q[p] = nil
			}
			return j
		}
	}
	return nil
}

const sweepEvery = time.Minute

// New starts an outbox. Call Close (or Drain) to stop it.
func New(opts Options) *Outbox {
	o := &Outbox{
		opts:    opts.withDefaults(),
		wakeCh:  make(chan struct{}, 1),
		drained: make(chan struct{}),
		chats:   make(map[chatKey]*chatState),
		keys:    make(map[string]*job),
	}
	if n := o.opts.GlobalPerSecond; n > 0 {
		o.globalInterval = ceilDiv(time.Second, n)
	}
	if n := o.opts.GroupPerMinute; n > 0 {
		o.groupInterval = ceilDiv(time.Minute, n)
	}
	if o.opts.ChatInterval > 0 {
		o.chatPeriod = o.opts.ChatInterval * time.Duration(o.opts.ChatBurst)
	}
	o.ready.less = func(a, b *chatState) bool {
		ha, hb := a.head(), b.head()
		if ha.Priority != hb.Priority {
			return ha.Priority > hb.Priority
		}
		return ha.seq < hb.seq
	}
	o.waiting.less = func(a, b *chatState) bool { return a.eligibleAt.Before(b.eligibleAt) }
	o.ctx, o.cancel = context.WithCancel(context.Background())
	o.wg.Add(1)
	go o.loop()
	return o
}

// ceilDiv rounds the spacing up so that n calls never fit in one period.
func ceilDiv(period time.Duration, n int) time.Duration {
	return (period + time.Duration(n) - 1) / time.Duration(n)
}

func (o *Outbox) wake() {
	select {
	case o.wakeCh <- struct{}{}:
	default:
	}
}

// submit validates and queues j, coalescing by key. It returns the internal
// job now carrying j (nil if j was rejected and already finished).
func (o *Outbox) submit(ctx context.Context, j Job, res chan error) *job {
	nj := &job{Job: j, ctx: ctx, res: res}
	if j.Do == nil || j.Priority < Low || j.Priority > High {
		nj.finish(fmt.Errorf("%w: chat %d", ErrInvalidJob, j.ChatID))
		return nil
	}
	o.mu.Lock()
	if o.closed || o.draining {
		o.mu.Unlock()
		nj.finish(ErrClosed)
		return nil
	}
	var superseded *job
	if old, ok := o.keys[j.Key]; ok && j.Key != "" && old.state == stateQueued {
		o.stats.Superseded++
		if old.ChatID == j.ChatID && old.Unpaced == j.Unpaced {
			superseded = &job{Job: Job{OnDone: old.OnDone}, res: old.res}
			old.Do, old.OnDone, old.res, old.ctx = j.Do, j.OnDone, res, ctx
			if j.Priority > old.Priority && old.chat != nil {
				o.unqueue(old)
				old.Priority, old.seq = j.Priority, o.nextSeq()
				o.enqueue(old)
			}
			o.wake()
			o.mu.Unlock()
			superseded.finish(ErrSuperseded)
			return old
		}
		o.unqueue(old) // same key moved to another chat: start over
		superseded = old
	}
	nj.seq = o.nextSeq()
	o.enqueue(nj)
	o.wake()
	o.mu.Unlock()
	if superseded != nil {
		superseded.finish(ErrSuperseded)
	}
	return nj
}

func (o *Outbox) nextSeq() uint64 {
	o.seq++
	return o.seq
}

// enqueue appends a queued job to its queue and registers its key.
func (o *Outbox) enqueue(j *job) {
	j.state = stateQueued
	if j.Key != "" {
		o.keys[j.Key] = j
	}
	if j.Unpaced {
		q := o.unpacedQueue(j)
		*q = append(*q, j)
		return
	}
	c := o.chatFor(chatKey{j.ChatID, j.Action})
	j.chat = c
	p := j.Priority.index()
	c.q[p] = append(c.q[p], j)
	o.stats.Queued[p]++
	o.reschedule(c)
}

// unpacedQueue is where an unpaced job waits: Low ones in the background.
func (o *Outbox) unpacedQueue(j *job) *[]*job {
	if j.Priority == Low {
		return &o.background
	}
	return &o.unpaced
}

// requeueFront puts a job that must be retried back at the head of its
// priority, so later jobs of the chat keep their order behind it.
func (o *Outbox) requeueFront(j *job) {
	j.state = stateQueued
	if j.Unpaced {
		q := o.unpacedQueue(j)
		*q = slices.Insert(*q, 0, j)
		return
	}
	p := j.Priority.index()
	j.chat.q[p] = slices.Insert(j.chat.q[p], 0, j)
	o.stats.Queued[p]++
}

// unqueue removes a queued job and its key; the caller finishes it.
func (o *Outbox) unqueue(j *job) {
	j.state = stateDone
	if j.Key != "" && o.keys[j.Key] == j {
		delete(o.keys, j.Key)
	}
	if j.chat == nil {
		q := o.unpacedQueue(j)
		if i := slices.Index(*q, j); i >= 0 {
			*q = slices.Delete(*q, i, i+1)
		}
		return
	}
	c, p := j.chat, j.Priority.index()
	if i := slices.Index(c.q[p], j); i >= 0 {
		c.q[p] = slices.Delete(c.q[p], i, i+1)
		o.stats.Queued[p]--
	}
	o.reschedule(c)
}

// abandon removes a queued job whose Send gave up; a running one is
// cancelled through its context instead.
func (o *Outbox) abandon(j *job, res chan error, err error) {
	o.mu.Lock()
	if j.res != res || j.state != stateQueued {
		o.mu.Unlock()
		return
	}
	o.unqueue(j)
	o.stats.Dropped++
	o.checkDrained()
	o.mu.Unlock()
	j.finish(err)
}

func (o *Outbox) chatFor(k chatKey) *chatState {
	c, ok := o.chats[k]
	if !ok {
		c = &chatState{key: k}
		switch {
		case k.action && o.opts.ActionPeriod > 0:
			c.win, c.period = newWindow(o.opts.ActionBurst), o.opts.ActionPeriod
		case !k.action && o.chatPeriod > 0:
			c.win, c.period = newWindow(o.opts.ChatBurst), o.chatPeriod
		}
		if !k.action && k.id < 0 && o.opts.GroupPerMinute > 0 {
			c.group = &groupLimits{win: newWindow(o.opts.GroupPerMinute)}
		}
		o.chats[k] = c
	}
	return c
}

// reschedule files the chat under the heap matching its state. Call after
// anything that changes its head job, its limits or its running flag.
func (o *Outbox) reschedule(c *chatState) {
	if c.heap != nil {
		heap.Remove(c.heap, c.idx)
		c.heap = nil
	}
	h := c.head()
	if c.running || h == nil || o.closed {
		return
	}
	t := later(h.notBefore, c.pausedUntil)
	// Draining, nothing new comes: a low job keeps no room for others.
	low := h.Priority == Low && !o.draining
	switch {
	case c.win == nil:
	case low && !c.key.action: // actions have their own window: nothing to reserve in it
		t = later(t, c.win.nextLow(c.period, o.opts.ChatReserve, false))
	default:
		t = later(t, c.win.next(c.period))
	}
	if g := c.group; g != nil && low {
		t = later(t, g.pace.next(o.groupInterval, o.opts.GroupBurst))
		t = later(t, g.win.nextLow(time.Minute, o.opts.GroupReserve, true))
	} else if g != nil {
		t = later(t, g.win.next(time.Minute))
	}
	c.eligibleAt = t
	if t.After(time.Now()) {
		heap.Push(&o.waiting, c)
	} else {
		heap.Push(&o.ready, c)
	}
}

func (o *Outbox) checkDrained() {
	if !o.draining || o.drainDone || o.inflight > 0 || len(o.unpaced) > 0 || len(o.background) > 0 {
		return
	}
	for _, n := range o.stats.Queued {
		if n > 0 {
			return
		}
	}
	o.drainDone = true
	o.drainClean = true
	close(o.drained)
}
