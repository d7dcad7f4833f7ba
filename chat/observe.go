package chat

import (
	"context"
	"slices"
	"sync"

	"github.com/untether/untether/approvals"
)

// Observers watch conversations without owning them (a dashboard, a web
// view): first a snapshot of each conversation they may see, then every
// event, in order per conversation. They see what the owning frontend's
// Surface is shown, as the core's values; they cannot change anything.

// Observer receives events. Observe must not block and must not call the
// Core: it runs on the conversation's goroutine with the watchers' lock
// held (a slow observer would hold the turn, one that calls back would
// wait for itself); one that needs time or the Core queues the event and
// returns.
type Observer interface {
	Observe(Event)
}

// EventKind says what happened.
type EventKind int

const (
	// EvSnapshot is the conversation as it stands when the watch began.
	EvSnapshot       EventKind = iota
	EvQueued                   // a message waits behind the running turn (Queued)
	EvTurnStarted              // a turn began (Turn)
	EvProgress                 // the running turn changed (Turn)
	EvText                     // the text being written (Text)
	EvPrompt                   // a request waits for the owner (Prompt)
	EvPromptResolved           // a request was answered, timed out or cancelled (Resolution)
	EvAnswer                   // the turn's answer (Final)
	EvCancelled                // the turn was cancelled
	EvFailed                   // the turn failed outside the agent's answer (Failure)
	EvTurnEnded                // the turn is over (Turn: how it ended)
	EvNote                     // a note to the conversation (Note)
)

// Event is one thing that happened in conversation Key; the fields its
// Kind names are set.
type Event struct {
	Kind   EventKind
	Key    string
	Place  Place
	Status Status        // EvSnapshot
	Turn   *TurnSnapshot // EvSnapshot (when a turn runs), EvTurnStarted, EvProgress, EvTurnEnded
	Queued int           // EvQueued: messages ahead
	Asked  string        // EvTurnStarted: the message the turn runs, as its sender wrote it
	Text   string
	Prompt *approvals.Prompt
	// Prompts (EvSnapshot) are the requests waiting when the watch began:
	// asked before it, they came as no EvPrompt.
	Prompts    []*approvals.Prompt
	Resolution *approvals.Resolution
	Final      *Final
	Failure    *Failure
	Note       Note
}

// watchers are the observers and, per conversation, the last snapshot of
// its running turn taken on its goroutine (a watch starting meanwhile
// reads that copy, never the turn's state).
type watchers struct {
	mu   sync.Mutex
	next int
	all  map[int]watch
	last map[string]*TurnSnapshot
}

type watch struct {
	key string // "" watches every conversation
	o   Observer
}

// Watch starts o on conversation key ("" for all): a snapshot of each, then
// their events. stop ends the watch; no event comes after it returns.
func (c *Core) Watch(key string, o Observer) (stop func()) {
	w := &c.watchers
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.all == nil {
		w.all, w.last = map[int]watch{}, map[string]*TurnSnapshot{}
	}
	for _, s := range c.all() {
		if key != "" && s.key != key {
			continue
		}
		ev := Event{Kind: EvSnapshot, Key: s.key, Place: s.place, Status: s.status()}
		if c.broker != nil { // a core of a test may have none
			ev.Prompts = c.broker.Prompts(s.key)
		}
		if t := w.last[s.key]; t != nil {
			cp := *t
			ev.Turn = &cp
		}
		o.Observe(ev)
	}
	id := w.next
	w.next++
	w.all[id] = watch{key: key, o: o}
	return func() {
		w.mu.Lock()
		delete(w.all, id)
		w.mu.Unlock()
	}
}

// emit gives ev to every observer of its conversation. A turn's snapshot
// is kept for watches that start later, until the turn ends.
func (c *Core) emit(ev Event) {
	w := &c.watchers
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil {
		w.all, w.last = map[int]watch{}, map[string]*TurnSnapshot{}
	}
	switch {
	case ev.Kind == EvTurnEnded:
		delete(w.last, ev.Key)
	case ev.Turn != nil:
		w.last[ev.Key] = ev.Turn
	}
	for _, x := range w.all {
		if x.key == "" || x.key == ev.Key {
			x.o.Observe(ev)
		}
	}
}

// watched says whether anyone watches key: events are only built then.
func (c *Core) watched(key string) bool {
	w := &c.watchers
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, x := range w.all {
		if x.key == "" || x.key == key {
			return true
		}
	}
	return false
}

// observed is a turn's surface that also tells the observers.
type observed struct {
	TurnSurface
	c *Core
	t *turn
}

// observe wraps v so that what it shows reaches the observers too.
func (c *Core) observe(t *turn, v TurnSurface) TurnSurface {
	o := &observed{TurnSurface: v, c: c, t: t}
	o.emit(Event{Kind: EvTurnStarted, Asked: t.qp.Text}, true)
	return o
}

// frontOf is the frontend's own surface of a turn, under the observers'
// wrapper: what it gave StartTurn, for it to find again.
func frontOf(v TurnSurface) TurnSurface {
	if o, ok := v.(*observed); ok {
		return o.TurnSurface
	}
	return v
}

// emit sends ev for the turn, with its snapshot when withTurn; nothing is
// built while nobody watches.
func (o *observed) emit(ev Event, withTurn bool) {
	a := o.t.a
	if !o.c.watched(a.key) {
		return
	}
	ev.Key, ev.Place = a.key, a.place
	if withTurn {
		s := o.t.Snapshot()
		s.Actions = slices.Clone(s.Actions) // the turn goes on changing its own
		ev.Turn = &s
	}
	o.c.emit(ev)
}

func (o *observed) Refresh(changed bool) {
	o.TurnSurface.Refresh(changed)
	if changed {
		o.emit(Event{Kind: EvProgress}, true)
	}
}

func (o *observed) Streamed(text string) {
	o.TurnSurface.Streamed(text)
	o.emit(Event{Kind: EvText, Text: text}, false)
}

func (o *observed) Prompt(ctx context.Context, p *approvals.Prompt) {
	o.emit(Event{Kind: EvPrompt, Prompt: p}, true)
	o.TurnSurface.Prompt(ctx, p)
}

func (o *observed) Answer(ctx context.Context, f Final) {
	o.TurnSurface.Answer(ctx, f)
	o.emit(Event{Kind: EvAnswer, Final: &f}, false)
}

func (o *observed) Cancelled(ctx context.Context, beforeStart bool) {
	o.TurnSurface.Cancelled(ctx, beforeStart)
	o.emit(Event{Kind: EvCancelled}, false)
}

func (o *observed) Failed(ctx context.Context, f Failure) {
	o.TurnSurface.Failed(ctx, f)
	o.emit(Event{Kind: EvFailed, Failure: &f}, false)
}

func (o *observed) Close(ctx context.Context, ok bool) {
	o.TurnSurface.Close(ctx, ok)
	o.emit(Event{Kind: EvTurnEnded}, true)
	o.c.forgetTurn(o.t.a.key)
}

// forgetTurn drops the kept snapshot of a turn that ended without anyone
// watching at its end.
func (c *Core) forgetTurn(key string) {
	w := &c.watchers
	w.mu.Lock()
	delete(w.last, key)
	w.mu.Unlock()
}

// note tells the conversation n, and its observers.
func (c *Core) note(key string, p Place, replyTo int, n Note) {
	c.surface.Note(p, replyTo, n)
	if c.watched(key) {
		c.emit(Event{Kind: EvNote, Key: key, Place: p, Note: n})
	}
}

// resolved tells the owning frontend and the observers that a request was
// answered, timed out or cancelled: a prompt answered anywhere loses its
// buttons everywhere.
func (c *Core) resolved(r approvals.Resolution) {
	c.surface.PromptResolved(r)
	if c.watched(r.Request.SessionKey) {
		c.emit(Event{Kind: EvPromptResolved, Key: r.Request.SessionKey, Resolution: &r})
	}
}
