package chat

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/triggers"
)

// Scheduled and triggered runs. A schedule (/at, /every, [[schedules]])
// lives in the store with when it is due next; the scheduler's loop wakes
// then and, in one transaction (prefs.Store.FireSchedule), queues the run
// in the conversation's durable prompt queue and moves the schedule on. A
// trigger (the [triggers] HTTP server) queues its run the same way. From
// there a run is a turn like any typed prompt: the session's queue, the
// access check when it runs, the budget, approvals, the directory. Its
// first message, sent when it starts, says where it came from (the
// frontend's).

// HookServer is the trigger server: *triggers.Server, or a stand-in in
// tests (a socket cannot live in a synctest bubble).
type HookServer interface {
	Serve(ctx context.Context, fire triggers.Fire) error
}

// DefaultMaxQueuedTriggers bounds the triggered runs waiting in one
// conversation's queue when the config says nothing.
const DefaultMaxQueuedTriggers = 3

// SchedulerConfig is what the scheduler works with.
type SchedulerConfig struct {
	Store *prefs.Store
	Log   *slog.Logger
	// Location is the zone schedules are read in; nil: the machine's.
	Location *time.Location
	// Entries are the owner's [[schedules]] as of now, replacing the stored
	// ones of the config at Start.
	Entries func(now time.Time) []prefs.Schedule
	// MaxQueuedTriggers bounds the triggered runs waiting in one
	// conversation's queue (default DefaultMaxQueuedTriggers).
	MaxQueuedTriggers int
	// Hooks, when set, is the trigger server Start runs.
	Hooks HookServer
	// Allowed says whether a user may still run work in a chat; schedules
	// of those who may not are removed at Start.
	Allowed func(chatID, userID int64) bool
	// Key is the conversation of a chat (and topic) a trigger writes to.
	Key func(chatID int64, thread int) string
	// Label names a scheduled run's rule for the conversation it runs in.
	Label func(r schedule.Rule, now time.Time) string
	// Run hands a queued run (already in the store) to its conversation.
	Run func(qp prefs.QueuedPrompt)
}

// Scheduler owns the timing of schedules and the way in for triggers.
type Scheduler struct {
	cfg  SchedulerConfig
	loop *schedule.Loop
	wg   sync.WaitGroup

	// held are schedules whose run could not be queued (the store
	// failed): the loop leaves them alone until then instead of spinning.
	// due is the schedules as last read, so that the loop's wake-ups
	// (every minute at least) read the state file only after a change:
	// changed says one was added or removed. Only the loop's goroutine
	// touches held and due.
	held    map[string]time.Time
	due     []prefs.Schedule
	changed atomic.Bool
}

// NewScheduler is a scheduler that has not started.
func NewScheduler(cfg SchedulerConfig) *Scheduler {
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.MaxQueuedTriggers <= 0 {
		cfg.MaxQueuedTriggers = DefaultMaxQueuedTriggers
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Scheduler{cfg: cfg, loop: schedule.NewLoop(), held: map[string]time.Time{}}
	s.changed.Store(true)
	return s
}

// Location is the zone schedules are read and shown in.
func (s *Scheduler) Location() *time.Location { return s.cfg.Location }

// Poke tells the loop the schedules changed (added, removed).
func (s *Scheduler) Poke() {
	s.changed.Store(true)
	s.loop.Poke()
}

// schedules are the stored schedules, read again only after a change.
func (s *Scheduler) schedules() ([]prefs.Schedule, error) {
	if !s.changed.Swap(false) {
		return s.due, nil
	}
	all, err := s.cfg.Store.Schedules()
	if err != nil {
		s.changed.Store(true)
		return nil, err
	}
	s.due = all
	return all, nil
}

// Start replaces the config's schedules in the store, then runs the loop
// and the trigger server until ctx ends (Wait waits for them). It runs
// after recovery: runs queued before a restart are in their sessions'
// queues by then.
func (s *Scheduler) Start(ctx context.Context) {
	var entries []prefs.Schedule
	if s.cfg.Entries != nil {
		entries = s.cfg.Entries(time.Now())
	}
	if err := s.cfg.Store.SyncConfigSchedules(entries); err != nil {
		s.cfg.Log.Error("could not store the config's schedules", "err", err)
	}
	s.dropDisallowed()
	s.wg.Go(func() { s.loop.Run(ctx, s.next, s.fire) })
	if s.cfg.Hooks != nil {
		s.wg.Go(func() {
			if err := s.cfg.Hooks.Serve(ctx, s.trigger); err != nil {
				s.cfg.Log.Error("the trigger server stopped", "err", err)
			}
		})
	}
}

// Wait waits until the loop and the trigger server Start ran have ended.
func (s *Scheduler) Wait() { s.wg.Wait() }

// next is when the earliest schedule is due (held ones at their hold).
func (s *Scheduler) next() (time.Time, bool) {
	all, err := s.schedules()
	if err != nil {
		s.cfg.Log.Error("could not read schedules", "err", err)
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
func (s *Scheduler) fire(now time.Time) {
	all, err := s.schedules()
	if err != nil {
		s.cfg.Log.Error("could not read schedules", "err", err)
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

func (s *Scheduler) fireOne(sc prefs.Schedule, now time.Time) {
	r := schedule.Rule{At: sc.At, Every: sc.Every, Cron: sc.Cron}
	late := schedule.Late(sc.Next, now)
	p := prefs.Prompt{ChatID: sc.ChatID, ThreadID: sc.ThreadID, UserID: sc.UserID, Text: sc.Prompt, Date: now,
		Origin: &prefs.Origin{Kind: prefs.OriginSchedule, Label: s.cfg.Label(r, now), ScheduleID: sc.ID,
			Due: sc.Next, Late: late, Config: sc.Config, Once: r.Once()}}
	seq, fired, err := s.cfg.Store.FireSchedule(sc.ID, sc.Next, r.After(sc.Next, now, s.cfg.Location), p)
	log := s.cfg.Log.With("chat_id", sc.ChatID, "schedule", sc.ID)
	switch {
	case err != nil:
		log.Error("could not queue a scheduled run", "err", err)
		s.held[sc.ID] = now.Add(time.Minute)
		return
	case !fired:
		return // removed, run already, or its previous run still waits
	}
	log.Info("scheduled run queued", "late", late)
	s.cfg.Run(prefs.QueuedPrompt{Key: sc.Key, Seq: seq, Prompt: p})
}

// trigger queues a run of hook h with delivery d (the server checked the
// signature, size and rate). It refuses with triggers.ErrBusy when the
// chat has MaxQueuedTriggers triggered runs waiting, and with
// triggers.ErrDuplicate when d was delivered within triggers.ReplayWindow:
// the state file remembers d in the transaction that queues its run, so a
// replay runs nothing, across restarts too, and a refused one may come again.
func (s *Scheduler) trigger(_ context.Context, h triggers.Hook, d triggers.Delivery) error {
	at := d.At
	if at.IsZero() {
		at = time.Now()
	}
	key := s.cfg.Key(h.ChatID, h.Thread)
	p := prefs.Prompt{ChatID: h.ChatID, ThreadID: h.Thread, Text: triggers.Prompt(h.Prompt, h.Name, d.Body), Date: at,
		Origin: &prefs.Origin{Kind: prefs.OriginTrigger, Label: h.Name, Body: shownBody(d.Body), Config: true}}
	seq, got, err := s.cfg.Store.EnqueueDelivery(key, p, s.cfg.MaxQueuedTriggers,
		prefs.Delivery{ID: d.ID, At: at, Until: at.Add(triggers.ReplayWindow)})
	switch {
	case err != nil:
		return err
	case got == prefs.SeenBefore:
		return triggers.ErrDuplicate
	case got != prefs.Queued:
		return triggers.ErrBusy
	}
	s.cfg.Run(prefs.QueuedPrompt{Key: key, Seq: seq, Prompt: p})
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

// dropDisallowed removes, at start, the schedules of users (or in chats)
// the allowlist no longer admits: only they may own schedules, and a
// schedule left behind would only say "not allowed" at every run.
func (s *Scheduler) dropDisallowed() {
	all, err := s.cfg.Store.Schedules()
	if err != nil {
		s.cfg.Log.Error("could not read schedules", "err", err)
		return
	}
	for _, sc := range all {
		if sc.Config {
			continue // checked when the config is loaded
		}
		if s.cfg.Allowed(sc.ChatID, sc.UserID) {
			continue
		}
		if _, err := s.cfg.Store.RemoveSchedule(sc.Key, sc.ID); err != nil {
			s.cfg.Log.Error("could not remove a schedule", "schedule", sc.ID, "err", err)
			continue
		}
		s.cfg.Log.Warn("schedule removed: its owner or chat is no longer allowed", "chat_id", sc.ChatID, "user_id", sc.UserID, "schedule", sc.ID)
	}
}

// announce has the frontend show the first message of a run no one typed,
// saying where it came from, and returns the prompt with that message as
// the one the turn answers (progress, answer and notes reply to it).
func (a *session) announce(ctx context.Context, qp prefs.QueuedPrompt) prefs.QueuedPrompt {
	if qp.Origin == nil || qp.MessageID != 0 {
		return qp
	}
	id := a.c.surface.Announce(ctx, a.place, qp)
	if id == 0 {
		return qp
	}
	// A restart before the turn begins replies to this message, not a new one.
	if _, err := a.c.store.AnnouncedRun(qp.Key, qp.Seq, id); err != nil {
		a.c.log.Warn("could not record a scheduled run's first message", "chat_id", a.place.ChatID, "err", err)
	}
	qp.MessageID = id
	return qp
}
