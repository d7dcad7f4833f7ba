package outbox

import (
	"container/heap"
	"context"
	"fmt"
	"time"
)

// loop is the single scheduler goroutine: it starts every call that the
// limits allow, then sleeps until the next chat becomes eligible or
// something changes (new job, finished call).
func (o *Outbox) loop() {
	defer o.wg.Done()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		o.mu.Lock()
		next := o.dispatch(time.Now())
		o.mu.Unlock()
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		}
		select {
		case <-o.ctx.Done():
			timer.Stop()
			return
		case <-o.wakeCh:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// dispatch starts as many calls as allowed at now and returns when it should
// run again (zero: only on a wake-up).
func (o *Outbox) dispatch(now time.Time) time.Time {
	if o.closed {
		return time.Time{}
	}
	for o.waiting.Len() > 0 && !o.waiting.items[0].eligibleAt.After(now) {
		c := heap.Pop(&o.waiting).(*chatState)
		heap.Push(&o.ready, c)
	}
	for o.inflight < o.opts.MaxInFlight {
		if g := o.global.next(o.globalInterval, 1); g.After(now) {
			return g
		}
		j := pickReady(&o.unpaced, now)
		if j == nil && o.ready.Len() > 0 {
			c := heap.Pop(&o.ready).(*chatState)
			j = c.popHead()
			o.stats.Queued[j.Priority.index()]--
			c.running = true
			low := j.Priority == Low
			if c.win != nil {
				c.win.take(now, low)
			}
			if g := c.group; g != nil {
				g.pace.take(now, o.groupInterval)
				g.win.take(now, low)
			}
		}
		if j == nil && o.bgInflight == 0 {
			if j = pickReady(&o.background, now); j != nil {
				o.bgInflight++
			}
		}
		if j == nil {
			break
		}
		o.global.take(now, o.globalInterval)
		j.state = stateRunning
		o.inflight++
		o.wg.Add(1)
		go o.run(j, j.Do, j.ctx)
	}

	var next time.Time
	earliest := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	if o.waiting.Len() > 0 {
		earliest(o.waiting.items[0].eligibleAt)
	}
	for _, j := range o.unpaced {
		if j.notBefore.After(now) {
			earliest(j.notBefore)
		}
	}
	for _, j := range o.background {
		if j.notBefore.After(now) {
			earliest(j.notBefore)
		}
	}
	if !now.Before(o.nextSweep) {
		o.sweep(now)
		o.nextSweep = now.Add(sweepEvery)
	}
	if len(o.chats) > 0 {
		earliest(o.nextSweep)
	}
	return next
}

// pickReady takes the oldest job of q that is not waiting for a retry.
func pickReady(q *[]*job, now time.Time) *job {
	for i, j := range *q {
		if !j.notBefore.After(now) {
			s := *q
			copy(s[i:], s[i+1:])
			s[len(s)-1] = nil
			*q = s[:len(s)-1]
			return j
		}
	}
	return nil
}

// sweep forgets chats whose state no longer constrains anything, so memory
// follows active chats, not every chat ever seen.
func (o *Outbox) sweep(now time.Time) {
	for k, c := range o.chats {
		if c.running || c.head() != nil || c.pausedUntil.After(now) || (c.win != nil && !c.win.idle(now, c.period)) {
			continue
		}
		if g := c.group; g != nil && (!g.pace.idle(now) || !g.win.idle(now, time.Minute)) {
			continue
		}
		delete(o.chats, k)
	}
}

// run performs one attempt on its own goroutine. do and jctx were read under
// the lock at dispatch: Replace may swap them on a queued job, not this one.
func (o *Outbox) run(j *job, do func(context.Context) error, jctx context.Context) {
	defer o.wg.Done()
	var ctx context.Context
	var cancel context.CancelFunc
	if o.opts.CallTimeout > 0 {
		ctx, cancel = context.WithTimeout(o.ctx, o.opts.CallTimeout)
	} else {
		ctx, cancel = context.WithCancel(o.ctx)
	}
	if jctx != nil {
		stop := context.AfterFunc(jctx, cancel)
		defer stop()
	}
	err := do(ctx)
	cancel()
	o.complete(j, err, jctx)
}

// complete decides what happens after an attempt: deliver the result, or
// queue the job again at the head of its priority for a retry.
func (o *Outbox) complete(j *job, err error, jctx context.Context) {
	now := time.Now()
	v, wait := classify(err)

	o.mu.Lock()
	o.inflight--
	if j.chat == nil && j.Priority == Low {
		o.bgInflight--
	}
	c := j.chat
	if c != nil {
		c.running = false
		// Count the call from its answer (see window.touch).
		if c.win != nil {
			c.win.touch(now)
		}
		if c.group != nil {
			c.group.win.touch(now)
		}
	}
	final := true
	var res error
	var retryIn time.Duration
	var newer *job
	switch {
	case v == vSuccess:
		o.stats.Sent++
	case o.closed:
		res = fmt.Errorf("%w: %w", ErrClosed, err)
	case jctx != nil && jctx.Err() != nil:
		res = fmt.Errorf("outbox: %w (last attempt: %w)", jctx.Err(), err)
	case v == vFail:
		o.stats.Failed++
		res = err
	default:
		o.stats.Retried++
		if v == vRetryWait {
			o.stats.TooMany++
			retryIn = wait
			if c != nil {
				c.pausedUntil = later(c.pausedUntil, now.Add(wait))
			}
		} else {
			j.attempts++
			retryIn = Backoff(j.attempts, o.opts.BackoffMin, o.opts.BackoffMax)
		}
		j.notBefore = now.Add(retryIn)
		if k, ok := o.keys[j.Key]; j.Key != "" && ok && k != j {
			newer = k
			// A newer version is queued: retrying this one would run two
			// versions. The newer one inherits the wait instead.
			newer.notBefore = later(newer.notBefore, j.notBefore)
			o.stats.Superseded++
			res = ErrSuperseded
		} else {
			final = false
			o.requeueFront(j)
		}
	}
	if final {
		j.state = stateDone
		if j.Key != "" && o.keys[j.Key] == j {
			delete(o.keys, j.Key)
		}
	}
	if c != nil {
		o.reschedule(c)
	}
	if newer != nil && newer.chat != nil && newer.chat != c {
		o.reschedule(newer.chat)
	}
	attempts := j.attempts
	o.checkDrained()
	o.wake()
	o.mu.Unlock()

	switch {
	case v == vRetryWait && retryIn > 0:
		o.opts.Logger.Warn("telegram flood control, pausing chat",
			"chat_id", j.ChatID, "retry_after", wait, "unpaced", j.Unpaced)
	case v == vBackoff && retryIn > 0:
		o.opts.Logger.Info("telegram call failed, will retry",
			"chat_id", j.ChatID, "attempt", attempts, "retry_in", retryIn, "err", err)
	}
	if final {
		j.finish(res)
	}
}

// chatHeap is a binary heap of chats; each chat records its index so it can
// be removed when its state changes.
type chatHeap struct {
	items []*chatState
	less  func(a, b *chatState) bool
}

func (h *chatHeap) Len() int           { return len(h.items) }
func (h *chatHeap) Less(i, k int) bool { return h.less(h.items[i], h.items[k]) }
func (h *chatHeap) Swap(i, k int) {
	h.items[i], h.items[k] = h.items[k], h.items[i]
	h.items[i].idx = i
	h.items[k].idx = k
}

func (h *chatHeap) Push(x any) {
	c := x.(*chatState)
	c.heap, c.idx = h, len(h.items)
	h.items = append(h.items, c)
}

func (h *chatHeap) Pop() any {
	n := len(h.items) - 1
	c := h.items[n]
	h.items[n] = nil
	h.items = h.items[:n]
	c.heap, c.idx = nil, -1
	return c
}
