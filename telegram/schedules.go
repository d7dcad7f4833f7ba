package telegram

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/schedule"
	"github.com/untether/untether/telegram/outbox"
	"github.com/untether/untether/telegram/view"
)

// Scheduled and triggered runs, the Telegram side: the config, the wiring
// of chat.Scheduler (which fires them), the first message of a run no one
// typed (announce), the note on subscription logins, the ✖ buttons of
// /schedules lists (schedcmds.go has the commands).

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
type HookServer = chat.HookServer

const defaultMaxSchedules = 20

// newScheduler is the chat.Scheduler of the config: a run it queues goes
// to its chat's actor behind the chat's command lane, like a typed
// prompt.
func newScheduler(b *Bot) *chat.Scheduler {
	c := &b.cfg.Schedules
	if c.Location == nil {
		c.Location = time.Local
	}
	if c.MaxPerChat <= 0 {
		c.MaxPerChat = defaultMaxSchedules
	}
	entries := func(now time.Time) []prefs.Schedule {
		out := make([]prefs.Schedule, 0, len(c.Entries))
		for _, e := range c.Entries {
			out = append(out, prefs.Schedule{ID: e.ID, Key: SessionKey(e.ChatID, e.Thread), ChatID: e.ChatID, ThreadID: e.Thread,
				Prompt: e.Prompt, At: e.Rule.At, Every: e.Rule.Every, Cron: e.Rule.Cron, Next: e.Rule.First(now, c.Location), Created: now})
		}
		return out
	}
	return chat.NewScheduler(chat.SchedulerConfig{Store: b.store, Log: b.log, Location: c.Location, Entries: entries,
		MaxQueuedTriggers: c.MaxQueuedTriggers, Hooks: b.cfg.Hooks,
		Allowed: func(chatID, userID int64) bool {
			chatOK, userOK := b.allow.Turn(chatID, userID, false)
			return chatOK && userOK
		},
		Key:   SessionKey,
		Label: func(r schedule.Rule, now time.Time) string { return view.ScheduleRule(r, now, c.Location) },
		Run: func(qp prefs.QueuedPrompt) {
			pl := place{ChatID: qp.ChatID, Thread: qp.ThreadID}
			b.lanes.run(qp.Key, func(context.Context) { b.core.Submit(qp.Key, pl, qp) })
		},
	})
}

// Announce sends the first message of a run no one typed, saying where
// it came from, and returns its id (chat.Surface): the turn answers it.
func (s *surface) Announce(ctx context.Context, pl place, qp prefs.QueuedPrompt) int {
	b := s.b
	o := qp.Origin
	now := time.Now()
	// Late when it was queued late, or queued in time but run after a
	// restart (it waited in the store while the bot was down).
	late := o.Late || (!o.Due.IsZero() && schedule.Late(o.Due, now))
	text := view.OriginText(view.Origin{Trigger: o.Kind == prefs.OriginTrigger, Label: o.Label, Prompt: qp.Text,
		Late: late, Due: o.Due, Body: o.Body, Web: o.Kind == prefs.OriginWeb}, now, b.cfg.Schedules.Location)
	id, err := b.api.send(ctx, pl, 0, text, nil, outbox.High)
	if err != nil {
		b.log.Warn("could not announce a scheduled run", "chat_id", pl.ChatID, "err", err)
		return 0
	}
	return id
}

// subscriptionNotes tell a chat, once while the bot runs, that its
// scheduled or triggered runs go on a subscription login.
type subscriptionNotes struct {
	api *tgAPI
	log *slog.Logger
	// subscription is set once a turn's init said it runs on a
	// subscription login; told are the chats that were told so.
	subscription atomic.Bool
	told         sync.Map
}

// sawBilling notes how Claude pays, from the init of a turn that ran
// the prompt of origin (nil: typed); a repeated or triggered run on a
// subscription login tells its chat once. A one-off /at is a message
// sent later, not automation: it says nothing.
func (s *subscriptionNotes) sawBilling(pl place, replyTo int, billing engine.Billing, origin *prefs.Origin) {
	if billing == engine.BillingUnknown {
		return
	}
	sub := billing == engine.BillingSubscription
	s.subscription.Store(sub)
	if origin != nil && !origin.Once && origin.Kind != prefs.OriginWeb && sub {
		s.tell(pl, replyTo)
	}
}

// tell says, once per chat while the bot runs, that scheduled runs on a
// subscription login go against Anthropic's consumer terms.
func (s *subscriptionNotes) tell(pl place, replyTo int) {
	if _, said := s.told.LoadOrStore(pl.ChatID, true); said {
		return
	}
	s.log.Warn("scheduled or triggered runs on a Claude subscription login: Anthropic's consumer terms restrict automated use; use an API key",
		"chat_id", pl.ChatID)
	s.api.notify(pl, replyTo, view.SubscriptionNote)
}

// scheduleRef is what a ✖ button of a /schedules list removes.
type scheduleRef struct {
	key    string
	chatID int64
	id     string
}
