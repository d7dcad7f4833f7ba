package web

import (
	"slices"
	"sync"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
)

// The hub is the web's one Observer of every conversation (Core.Watch("")):
// it folds the core's events into what the pages show and wakes the pages
// that watch. Observe runs on the conversations' goroutines: it only takes
// the hub's lock for a fold and pokes each page's channel without waiting,
// and never calls the Core.

// State is what a conversation's page shows of it.
type State int

const (
	Idle State = iota
	Working
	WaitingApproval
)

// maxEntries bounds what the hub keeps of a conversation the page observed.
const maxEntries = 50

// conv is one conversation as the web knows it.
type conv struct {
	key     string
	place   chat.Place
	running bool
	turn    *chat.TurnSnapshot
	stream  string
	prompts []*approvals.Prompt // waiting, oldest first
	entries []Entry             // what the page observed, oldest first
	version uint64
}

func (c *conv) state() State {
	switch {
	case len(c.prompts) > 0:
		return WaitingApproval
	case c.running:
		return Working
	}
	return Idle
}

// hub keeps the conversations and the pages that watch them.
type hub struct {
	now   func() time.Time
	mu    sync.Mutex
	convs map[string]*conv
	pages map[chan struct{}]string // a page's wake-up channel → its key
}

func newHub(now func() time.Time) *hub {
	return &hub{now: now, convs: map[string]*conv{}, pages: map[chan struct{}]string{}}
}

// Observe folds ev in (chat.Observer).
func (h *hub) Observe(ev chat.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.convs[ev.Key]
	if c == nil {
		c = &conv{key: ev.Key}
		h.convs[ev.Key] = c
	}
	if ev.Place != (chat.Place{}) { // a resolution comes without its place
		c.place = ev.Place
	}
	c.version++
	switch ev.Kind {
	case chat.EvSnapshot:
		c.running, c.turn = ev.Status.Running, ev.Turn
		for _, p := range ev.Prompts { // asked before the hub watched
			c.waiting(p)
		}
	case chat.EvTurnStarted:
		c.running, c.turn, c.stream = true, ev.Turn, ""
		c.started(ev.Asked, h.now())
	case chat.EvProgress:
		c.turn = ev.Turn
	case chat.EvText:
		c.stream = ev.Text
	case chat.EvPrompt:
		c.waiting(ev.Prompt)
	case chat.EvPromptResolved:
		id := ev.Resolution.Request.RequestID
		c.prompts = slices.DeleteFunc(c.prompts, func(p *approvals.Prompt) bool { return p.Request.RequestID == id })
		c.add(Entry{Kind: EntryResolved, Text: string(ev.Resolution.Outcome), Tool: ev.Resolution.Request.ToolName, At: h.now()})
	case chat.EvAnswer:
		c.stream = ""
		c.add(Entry{Kind: EntryAnswer, Text: ev.Final.Result, Cost: ev.Final.Cost, At: h.now()})
	case chat.EvCancelled:
		c.add(Entry{Kind: EntryCancelled, At: h.now()})
	case chat.EvFailed:
		c.add(Entry{Kind: EntryFailed, Text: ev.Failure.Detail, At: h.now()})
	case chat.EvTurnEnded:
		c.running, c.turn, c.stream, c.prompts = false, nil, "", nil
	}
	for ch, key := range h.pages {
		if key == ev.Key || key == "" {
			select {
			case ch <- struct{}{}:
			default: // already woken: it reads the latest state anyway
			}
		}
	}
}

// waiting adds a request that waits, once: one asked as the watch began
// may come in the snapshot and as an event.
func (c *conv) waiting(p *approvals.Prompt) {
	if !slices.ContainsFunc(c.prompts, func(q *approvals.Prompt) bool { return q.Request.RequestID == p.Request.RequestID }) {
		c.prompts = append(c.prompts, p)
	}
}

// started shows the prompt a turn runs: the one typed on the web that
// waited for it (now shown at the turn's start), or one typed in the chat.
func (c *conv) started(asked string, now time.Time) {
	for i := range c.entries {
		if e := &c.entries[i]; e.queued && e.Text == asked {
			e.queued, e.At = false, now
			return
		}
	}
	if asked != "" {
		c.add(Entry{Kind: EntryPrompt, Text: asked, At: now})
	}
}

func (c *conv) add(e Entry) {
	c.entries = append(c.entries, e)
	if len(c.entries) > maxEntries {
		c.entries = slices.Delete(c.entries, 0, len(c.entries)-maxEntries)
	}
}

// subscribe wakes the returned channel after each event of key ("": all).
func (h *hub) subscribe(key string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.pages[ch] = key
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.pages, ch)
		h.mu.Unlock()
	}
}

// prompted records a prompt typed on the web, as the page shows it.
func (h *hub) prompted(key string, p chat.Place, who, text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.convs[key]
	if c == nil {
		c = &conv{key: key, place: p}
		h.convs[key] = c
	}
	c.add(Entry{Kind: EntryPrompt, Who: who, Text: text, At: h.now(), queued: true})
}

// View is a conversation as a page renders it (copied out of the hub).
type View struct {
	Key     string
	Place   chat.Place
	State   State
	Phase   turnstate.Phase
	Actions []turnstate.Action
	Stream  string
	Prompts []*approvals.Prompt
	Entries []Entry
}

// view copies key's conversation; ok is false when the hub has not seen it.
func (h *hub) view(key string) (View, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.convs[key]
	if c == nil {
		return View{Key: key}, false
	}
	v := View{Key: key, Place: c.place, State: c.state(), Stream: c.stream,
		Prompts: slices.Clone(c.prompts), Entries: slices.Clone(c.entries)}
	if c.turn != nil {
		v.Phase, v.Actions = c.turn.Phase, slices.Clone(c.turn.Actions)
	}
	return v, true
}

// keys are the conversations the hub has seen.
func (h *hub) keys() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, 0, len(h.convs))
	for k := range h.convs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// prompt finds a waiting request of key by its id.
func (h *hub) prompt(key, requestID string) (*approvals.Prompt, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.convs[key]; c != nil {
		for _, p := range c.prompts {
			if p.Request.RequestID == requestID {
				return p, true
			}
		}
	}
	return nil, false
}
