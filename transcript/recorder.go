package transcript

import (
	"log/slog"
	"sync"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/chat/turnstate"
)

// Recorder writes the turns the core reports into the Log. Observe only
// queues the event (it runs on the conversation's goroutine and must not
// block: a write to the state file waits for a disk sync); one goroutine
// folds the events into turns and writes each when it ends. The queue is
// unbounded, so no event is lost while the bot runs; it holds only the few
// events a transcript needs, and a turn is written once it ends.
//
// On a crash, what was queued and the turns still running are lost (the
// log misses those turns; nothing else is hurt). Close, on a clean stop,
// writes everything queued before it returns.
type Recorder struct {
	log  *Log
	lg   *slog.Logger
	mu   sync.Mutex
	q    []chat.Event
	shut bool
	wake chan struct{}
	done chan struct{}
	// running are the turns begun and not ended, by conversation (the
	// goroutine's own).
	running map[string]*Turn
}

// Record starts a recorder into l; register it with Core.Watch("", r).
func (l *Log) Record(lg *slog.Logger) *Recorder {
	if lg == nil {
		lg = slog.Default()
	}
	r := &Recorder{log: l, lg: lg, wake: make(chan struct{}, 1), done: make(chan struct{}), running: map[string]*Turn{}}
	go r.loop()
	return r
}

// Observe queues the events a transcript is made of (chat.Observer).
func (r *Recorder) Observe(ev chat.Event) {
	switch ev.Kind {
	case chat.EvTurnStarted, chat.EvAnswer, chat.EvCancelled, chat.EvFailed, chat.EvTurnEnded:
	default:
		return
	}
	r.mu.Lock()
	if r.shut {
		r.mu.Unlock()
		r.lg.Warn("a turn's event came after the transcript stopped: not recorded", "session_key", ev.Key, "kind", ev.Kind)
		return
	}
	r.q = append(r.q, ev)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Close writes what is queued and stops the recorder; stop the watch first.
func (r *Recorder) Close() {
	r.mu.Lock()
	already := r.shut
	r.shut = true
	r.mu.Unlock()
	if !already {
		close(r.wake)
	}
	<-r.done
}

func (r *Recorder) loop() {
	defer close(r.done)
	for {
		_, open := <-r.wake
		r.mu.Lock()
		q := r.q
		r.q = nil
		r.mu.Unlock()
		for _, ev := range q {
			r.fold(ev)
		}
		if !open {
			return
		}
	}
}

// fold applies one event; a turn that ends is written.
func (r *Recorder) fold(ev chat.Event) {
	t := r.running[ev.Key]
	if t == nil {
		// A turn first seen at its end began before the watch (or the
		// recorder missed its start): recorded without its prompt.
		t = &Turn{Started: time.Now()}
		r.running[ev.Key] = t
	}
	switch ev.Kind {
	case chat.EvTurnStarted:
		*t = Turn{Started: time.Now(), Prompt: ev.Asked}
		if ev.Turn != nil && !ev.Turn.Started.IsZero() {
			t.Started = ev.Turn.Started
		}
	case chat.EvAnswer:
		answered(t, *ev.Final)
	case chat.EvCancelled:
		t.Outcome = Cancelled
	case chat.EvFailed:
		t.Outcome, t.Error = Failed, ev.Failure.Detail
		if ev.Failure.Kind == chat.FailDailyBudget {
			t.Outcome = Refused
		}
	case chat.EvTurnEnded:
		delete(r.running, ev.Key)
		t.Ended = time.Now()
		if t.Outcome == "" {
			t.Outcome = Stopped
		}
		if ev.Turn != nil {
			for _, a := range ev.Turn.Actions {
				t.Tools = append(t.Tools, Tool{Kind: string(a.Kind), Input: a.Title, Failed: a.State == turnstate.Failed})
			}
		}
		if err := r.log.append(ev.Key, *t); err != nil {
			r.lg.Warn("could not record a turn in the transcript", "session_key", ev.Key, "err", err)
		}
	}
}

// answered takes the answer's values into t.
func answered(t *Turn, f chat.Final) {
	t.CostUSD, t.InTokens, t.OutTokens, t.RanAnyway = f.Cost, f.InTokens, f.OutTokens, f.Overrun != 0
	switch f.Outcome {
	case chat.OutcomeDone:
		t.Outcome, t.Answer = Done, f.Result
	case chat.OutcomeBudgetStop:
		t.Outcome = BudgetStop
	case chat.OutcomeLimitStop:
		t.Outcome = LimitStop
	default:
		t.Outcome, t.Error = Failed, f.Error
	}
}

// Watch records every conversation of core into l while the bot runs; the
// func it returns stops the watch and writes what is still queued (call it
// once the core has stopped).
func Watch(core *chat.Core, l *Log, lg *slog.Logger) (stop func()) {
	rec := l.Record(lg)
	unwatch := core.Watch("", rec)
	return func() {
		unwatch()
		rec.Close()
	}
}
