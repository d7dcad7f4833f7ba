package telegram

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
	"github.com/untether/untether/triggers"
)

// Scheduled and triggered runs. A schedule (/at, /every, [[schedules]])
// lives in the store with when it is due next; the scheduler's loop wakes
// then and, in one transaction (prefs.Store.FireSchedule), queues the run
// in the chat's durable prompt queue and moves the schedule on. A trigger
// (the [triggers] HTTP server) queues its run the same way. From there a
// run is a turn like any typed prompt: the actor's queue, mayRun's access
// check, the budget, approvals, the chat's directory. Its first message,
// sent when it starts, says where it came from (announce).

// Schedules is [schedule] and [[schedules]] of the config.
type Schedules struct {
	// Location is the zone schedules are read and shown in; nil: the
	// machine's.
	Location *time.Location
	// Entries are the owner's [[schedules]]: kept in the store beside the
	// users' own (so a run missed while the bot was down is still seen),
	// replaced at each start.
	Entries []ScheduleEntry
	// MaxPerChat bounds the schedules users may add to one chat (default 20).
	MaxPerChat int
	// MaxQueuedTriggers bounds the triggered runs waiting in one chat's
	// queue; a trigger past it gets 503 (default 3).
	MaxQueuedTriggers int
}

// ScheduleEntry is one [[schedules]] entry.
type ScheduleEntry struct {
	ID     string // stable across restarts while the entry is unchanged
	ChatID int64
	Thread int
	Rule   schedule.Rule
	Prompt string
}

// HookServer is the trigger server: *triggers.Server, or a stand-in in
// tests (a socket cannot live in a synctest bubble).
type HookServer interface {
	Serve(ctx context.Context, fire triggers.Fire) error
}

const (
	defaultMaxSchedules      = 20
	defaultMaxQueuedTriggers = 3
)

// scheduler owns the timing of schedules and the way in for triggers.
type scheduler struct {
	b    *Bot
	loc  *time.Location
	loop *schedule.Loop

	// held are schedules whose run could not be queued (the store
	// failed): the loop leaves them alone until then instead of spinning.
	// due is the schedules as last read, so that the loop's wake-ups
	// (every minute at least) read the state file only after a change:
	// changed says one was added or removed. Only the loop's goroutine
	// touches held and due.
	held    map[string]time.Time
	due     []prefs.Schedule
	changed atomic.Bool
	// subscription is set once a turn's init said it runs on a
	// subscription login; told are the chats that were told so.
	subscription atomic.Bool
	told         sync.Map
}

func newScheduler(b *Bot) *scheduler {
	c := &b.cfg.Schedules
	if c.Location == nil {
		c.Location = time.Local
	}
	if c.MaxPerChat <= 0 {
		c.MaxPerChat = defaultMaxSchedules
	}
	if c.MaxQueuedTriggers <= 0 {
		c.MaxQueuedTriggers = defaultMaxQueuedTriggers
	}
	s := &scheduler{b: b, loc: c.Location, loop: schedule.NewLoop(), held: map[string]time.Time{}}
	s.changed.Store(true)
	return s
}

// poke tells the loop the schedules changed (added, removed).
func (s *scheduler) poke() {
	s.changed.Store(true)
	s.loop.Poke()
}

// schedules are the stored schedules, read again only after a change.
func (s *scheduler) schedules() ([]prefs.Schedule, error) {
	if !s.changed.Swap(false) {
		return s.due, nil
	}
	all, err := s.b.store.Schedules()
	if err != nil {
		s.changed.Store(true)
		return nil, err
	}
	s.due = all
	return all, nil
}

// start replaces the config's schedules in the store, then runs the loop
// and the trigger server until ctx ends. It runs after recover: runs
// queued before a restart are in the actors' queues by then.
func (s *scheduler) start(ctx context.Context) {
	b := s.b
	now := time.Now()
	entries := make([]prefs.Schedule, 0, len(b.cfg.Schedules.Entries))
	for _, e := range b.cfg.Schedules.Entries {
		entries = append(entries, prefs.Schedule{ID: e.ID, Key: SessionKey(e.ChatID, e.Thread), ChatID: e.ChatID, ThreadID: e.Thread,
			Prompt: e.Prompt, At: e.Rule.At, Every: e.Rule.Every, Cron: e.Rule.Cron, Next: e.Rule.First(now, s.loc), Created: now})
	}
	if err := b.store.SyncConfigSchedules(entries); err != nil {
		b.log.Error("could not store the config's schedules", "err", err)
	}
	s.dropDisallowed()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		s.loop.Run(ctx, s.next, s.fire)
	}()
	if b.cfg.Hooks != nil {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			if err := b.cfg.Hooks.Serve(ctx, s.trigger); err != nil {
				b.log.Error("the trigger server stopped", "err", err)
			}
		}()
	}
}

// next is when the earliest schedule is due (held ones at their hold).
func (s *scheduler) next() (time.Time, bool) {
	all, err := s.schedules()
	if err != nil {
		s.b.log.Error("could not read schedules", "err", err)
		return time.Now().Add(time.Minute), true
	}
	var due time.Time
	for _, sc := range all {
		if sc.Next.IsZero() {
			continue // never due (FireSchedule removes a schedule with no next run)
		}
		t := sc.Next
		if h, ok := s.held[sc.ID]; ok && h.After(t) {
			t = h
		}
		if due.IsZero() || t.Before(due) {
			due = t
		}
	}
	return due, !due.IsZero()
}

// fire queues the run of every schedule due at now.
func (s *scheduler) fire(now time.Time) {
	all, err := s.schedules()
	if err != nil {
		s.b.log.Error("could not read schedules", "err", err)
		return
	}
	defer s.changed.Store(true) // runs queued: their schedules moved on
	for _, sc := range all {
		if sc.Next.IsZero() {
			continue
		}
		if sc.Next.After(now) {
			break // sorted by due time
		}
		if h, ok := s.held[sc.ID]; ok && h.After(now) {
			continue
		}
		delete(s.held, sc.ID)
		s.fireOne(sc, now)
	}
}

func (s *scheduler) fireOne(sc prefs.Schedule, now time.Time) {
	b := s.b
	r := schedule.Rule{At: sc.At, Every: sc.Every, Cron: sc.Cron}
	late := schedule.Late(sc.Next, now)
	p := prefs.Prompt{ChatID: sc.ChatID, ThreadID: sc.ThreadID, UserID: sc.UserID, Text: sc.Prompt, Date: now,
		Origin: &prefs.Origin{Kind: prefs.OriginSchedule, Label: view.ScheduleRule(r, now, s.loc), ScheduleID: sc.ID,
			Due: sc.Next, Late: late, Config: sc.Config, Once: r.Once()}}
	seq, fired, err := b.store.FireSchedule(sc.ID, sc.Next, r.After(sc.Next, now, s.loc), p)
	log := b.log.With("chat_id", sc.ChatID, "schedule", sc.ID)
	switch {
	case err != nil:
		log.Error("could not queue a scheduled run", "err", err)
		s.held[sc.ID] = now.Add(time.Minute)
		return
	case !fired:
		return // removed, run already, or its previous run still waits
	}
	log.Info("scheduled run queued", "late", late)
	s.run(prefs.QueuedPrompt{Key: sc.Key, Seq: seq, Prompt: p})
}

// run hands a queued run to its session's actor, behind the session's
// command lane like a typed prompt.
func (s *scheduler) run(qp prefs.QueuedPrompt) {
	pl := place{ChatID: qp.ChatID, Thread: qp.ThreadID}
	s.b.lanes.run(qp.Key, func(context.Context) { s.b.actorFor(qp.Key, pl, isGroup(qp.ChatID)).enqueue(qp) })
}

// trigger queues a run of hook h with delivery d (the server checked the
// signature, size and rate). It refuses with triggers.ErrBusy when the
// chat has MaxQueuedTriggers triggered runs waiting, and with
// triggers.ErrDuplicate when d was delivered within triggers.ReplayWindow:
// the state file remembers d in the transaction that queues its run, so a
// replay runs nothing, across restarts too, and a refused one may come again.
func (s *scheduler) trigger(_ context.Context, h triggers.Hook, d triggers.Delivery) error {
	b := s.b
	at := d.At
	if at.IsZero() {
		at = time.Now()
	}
	key := SessionKey(h.ChatID, h.Thread)
	p := prefs.Prompt{ChatID: h.ChatID, ThreadID: h.Thread, Text: triggers.Prompt(h.Prompt, h.Name, d.Body), Date: at,
		Origin: &prefs.Origin{Kind: prefs.OriginTrigger, Label: h.Name, Body: shownBody(d.Body), Config: true}}
	seq, got, err := b.store.EnqueueDelivery(key, p, b.cfg.Schedules.MaxQueuedTriggers,
		prefs.Delivery{ID: d.ID, At: at, Until: at.Add(triggers.ReplayWindow)})
	switch {
	case err != nil:
		return err
	case got == prefs.SeenBefore:
		return triggers.ErrDuplicate
	case got != prefs.Queued:
		return triggers.ErrBusy
	}
	s.run(prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: p})
	return nil
}

// shownBody is the part of a trigger's body the chat sees (view cuts it
// again to fit a message): enough, without storing 64 KiB per run.
func shownBody(body []byte) string {
	const keep = 4 << 10
	if len(body) > keep {
		body = body[:keep]
	}
	return string(body)
}

// announce sends the first message of a run no one typed, saying where
// it came from, and returns the prompt with that message as the one the
// turn answers (progress, answer and notes reply to it).
func (a *actor) announce(ctx context.Context, qp prefs.QueuedPrompt) prefs.QueuedPrompt {
	if qp.Origin == nil || qp.MessageID != 0 {
		return qp
	}
	b := a.b
	o := qp.Origin
	now := time.Now()
	// Late when it was queued late, or queued in time but run after a
	// restart (it waited in the store while the bot was down).
	late := o.Late || (!o.Due.IsZero() && schedule.Late(o.Due, now))
	text := view.OriginText(view.Origin{Trigger: o.Kind == prefs.OriginTrigger, Label: o.Label, Prompt: qp.Text,
		Late: late, Due: o.Due, Body: o.Body}, now, b.cfg.Schedules.Location)
	id, err := b.api.send(ctx, a.place, 0, text, nil, outbox.High)
	if err != nil {
		b.log.Warn("could not announce a scheduled run", "chat_id", a.place.ChatID, "err", err)
		return qp
	}
	// A restart before the turn begins replies to this message, not a new one.
	if _, err := b.store.AnnouncedRun(qp.Key, qp.Seq, id); err != nil {
		b.log.Warn("could not record a scheduled run's first message", "chat_id", a.place.ChatID, "err", err)
	}
	qp.MessageID = id
	return qp
}

// sawBilling notes how Claude pays, from the init of a turn that ran
// the prompt of origin (nil: typed); a repeated or triggered run on a
// subscription login tells its chat once. A one-off /at is a message
// sent later, not automation: it says nothing.
func (s *scheduler) sawBilling(pl place, replyTo int, billing engine.Billing, origin *prefs.Origin) {
	if billing == engine.BillingUnknown {
		return
	}
	sub := billing == engine.BillingSubscription
	s.subscription.Store(sub)
	if origin != nil && !origin.Once && sub {
		s.tellSubscription(pl, replyTo)
	}
}

// tellSubscription says, once per chat while the bot runs, that scheduled
// runs on a subscription login go against Anthropic's consumer terms.
func (s *scheduler) tellSubscription(pl place, replyTo int) {
	if _, said := s.told.LoadOrStore(pl.ChatID, true); said {
		return
	}
	s.b.log.Warn("scheduled or triggered runs on a Claude subscription login: Anthropic's consumer terms restrict automated use; use an API key",
		"chat_id", pl.ChatID)
	s.b.api.notify(pl, replyTo, view.SubscriptionNote)
}

// dropDisallowed removes, at start, the schedules of users (or in chats)
// the allowlist no longer admits: only they may own schedules, and a
// schedule left behind would only say "not allowed" at every run.
func (s *scheduler) dropDisallowed() {
	b := s.b
	all, err := b.store.Schedules()
	if err != nil {
		b.log.Error("could not read schedules", "err", err)
		return
	}
	for _, sc := range all {
		if sc.Config {
			continue // checked when the config is loaded
		}
		if chatOK, userOK := b.allow.turn(sc.ChatID, sc.UserID, false); chatOK && userOK {
			continue
		}
		if _, err := b.store.RemoveSchedule(sc.Key, sc.ID); err != nil {
			b.log.Error("could not remove a schedule", "schedule", sc.ID, "err", err)
			continue
		}
		b.log.Warn("schedule removed: its owner or chat is no longer allowed", "chat_id", sc.ChatID, "user_id", sc.UserID, "schedule", sc.ID)
	}
}

// scheduleRef is what a ✖ button of a /schedules list removes.
type scheduleRef struct {
	key    string
	chatID int64
	id     string
}
