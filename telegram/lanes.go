package telegram

import (
	"context"
	"sync"
	"time"
)

// defaultCommandWait bounds one piece of a session's router work (a command,
// a typed answer written to Claude): the runner bounds its own control
// requests more tightly; this catches whatever else could hang.
const defaultCommandWait = time.Minute

// lanes run each session's slow router work off the poll loop, one job at
// a time per session: a command that waits for Claude (a mode switch, an
// answer written to a CLI that stopped reading) or for the disk stalls only
// its own chat, never the polling of every other one. Within a session jobs
// run in the order they came, and a prompt that arrives while its session's
// lane is busy waits behind it, so "/planmode on" and then a message still
// reach Claude in that order. A lane is a goroutine only while it has work.
type lanes struct {
	b    *Bot
	wait time.Duration // bound on one job

	mu     sync.Mutex
	ctx    context.Context // cancelled at shutdown
	stop   context.CancelFunc
	closed bool
	m      map[string]*lane
}

type lane struct {
	jobs   []func(context.Context)
	cancel context.CancelFunc // of the running job
}

func newLanes(b *Bot, wait time.Duration) *lanes {
	ctx, stop := context.WithCancel(context.Background())
	return &lanes{b: b, wait: wait, ctx: ctx, stop: stop, m: map[string]*lane{}}
}

// run queues job on key's lane; it runs on the lane's goroutine with a
// context bounded by the lane's wait and cancelled at shutdown or by
// cancelRunning.
func (l *lanes) run(key string, job func(context.Context)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return // shutting down: what it would have done is lost, as in a crash
	}
	ln := l.m[key]
	if ln == nil {
		ln = &lane{}
		l.m[key] = ln
		l.b.wg.Add(1)
		go l.work(key, ln)
	}
	ln.jobs = append(ln.jobs, job)
}

// inOrder does quick work (it must not block) now when key's lane is idle,
// and behind the lane's queued work otherwise.
func (l *lanes) inOrder(key string, job func()) {
	l.mu.Lock()
	busy := l.m[key] != nil
	l.mu.Unlock()
	// Only the poll loop adds work, so an idle lane stays idle until job
	// is done: nothing queued before it can run after it.
	if !busy {
		job()
		return
	}
	l.run(key, func(context.Context) { job() })
}

// cancelRunning cancels the context of key's running job, if any.
func (l *lanes) cancelRunning(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ln := l.m[key]; ln != nil && ln.cancel != nil {
		ln.cancel()
		return true
	}
	return false
}

// close cancels running jobs and drops queued ones.
func (l *lanes) close() {
	l.mu.Lock()
	l.closed = true
	for _, ln := range l.m {
		ln.jobs = nil
	}
	l.mu.Unlock()
	l.stop()
}

func (l *lanes) work(key string, ln *lane) {
	defer l.b.wg.Done()
	for {
		l.mu.Lock()
		if len(ln.jobs) == 0 {
			delete(l.m, key)
			l.mu.Unlock()
			return
		}
		job := ln.jobs[0]
		ln.jobs[0] = nil
		ln.jobs = ln.jobs[1:]
		ctx, cancel := context.WithTimeout(l.ctx, l.wait)
		ln.cancel = cancel
		l.mu.Unlock()
		job(ctx)
		l.mu.Lock()
		ln.cancel = nil
		l.mu.Unlock()
		cancel()
	}
}
