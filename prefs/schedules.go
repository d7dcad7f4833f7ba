package prefs

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Schedule is a prompt that runs at set times in a session (/at, /every, or
// the owner's [[schedules]]). The store keeps when it is due next, so a
// restart neither loses a run nor repeats one; what the times mean (the
// rule) is package schedule's.
type Schedule struct {
	ID       string `json:"id"`
	Key      string `json:"key"` // the session key it runs in
	ChatID   int64  `json:"chat_id"`
	ThreadID int    `json:"thread_id,omitempty"`
	// UserID is who set it up, checked again at every run; 0 for the
	// config's entries (Config).
	UserID int64  `json:"user_id,omitempty"`
	Prompt string `json:"prompt"`
	// The rule: once At, every Every, or by Cron.
	At    time.Time     `json:"at,omitzero"`
	Every time.Duration `json:"every,omitempty"`
	Cron  string        `json:"cron,omitempty"`
	// Next is when it is due; it moves on in the transaction that queues
	// the run (FireSchedule).
	Next    time.Time `json:"next"`
	Created time.Time `json:"created"`
	// Config marks an entry of the owner's [[schedules]]: SyncConfigSchedules
	// replaces them at start, /schedules cannot remove them.
	Config bool `json:"config,omitempty"`
}

// Origin says where a prompt that no one typed came from: a schedule or a
// trigger. Its run's first message names it.
type Origin struct {
	Kind  string `json:"kind"`  // OriginSchedule or OriginTrigger
	Label string `json:"label"` // the schedule's rule as people read it, or the trigger's name
	// ScheduleID is the schedule that queued it.
	ScheduleID string `json:"schedule_id,omitempty"`
	// Due is when the schedule was due; Late marks a run that started
	// well after it (the bot was down).
	Due  time.Time `json:"due,omitzero"`
	Late bool      `json:"late,omitempty"`
	// Body is a trigger's body as received (cut), shown in the chat as data.
	Body string `json:"body,omitempty"`
	// Config marks a run the owner set up in the config, which no user
	// owns: its chat must be allowed by itself (see the bot's mayRun).
	Config bool `json:"config,omitempty"`
	// Once marks the run of a one-off schedule (/at).
	Once bool `json:"once,omitempty"`
}

// Kinds of Origin.
const (
	OriginSchedule = "schedule"
	OriginTrigger  = "trigger"
	// OriginWeb: typed on the web view; Label is who typed it.
	OriginWeb = "web"
)

// ErrTooMany is AddSchedule's refusal when the chat has its limit.
var ErrTooMany = errors.New("too many schedules in this chat")

// AddSchedule stores a new schedule under a fresh id, unless key already
// has max schedules of users (max <= 0: no limit).
func (s *Store) AddSchedule(sc Schedule, max int) (Schedule, error) {
	if err := checkKey(sc.Key); err != nil {
		return Schedule{}, err
	}
	err := s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketSchedules)
		if err != nil {
			return err
		}
		all, err := tx.schedules()
		if err != nil {
			return err
		}
		n := 0
		for _, o := range all {
			if o.Key == sc.Key && !o.Config {
				n++
			}
		}
		if max > 0 && n >= max {
			return ErrTooMany
		}
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("schedule id: %w", err)
		}
		sc.ID = "u" + strconv.FormatUint(seq, 10)
		return putJSON(b, []byte(sc.ID), sc)
	})
	return sc, err
}

// Schedules returns every stored schedule, the earliest due first.
func (s *Store) Schedules() (out []Schedule, err error) {
	err = s.view(func(tx *txn) error { out, err = tx.schedules(); return err })
	return out, err
}

// RemoveSchedule deletes the schedule id of session key; found is false
// when there is none (or it is the config's, which only the config changes).
func (s *Store) RemoveSchedule(key, id string) (found bool, err error) {
	err = s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketSchedules)
		if err != nil {
			return err
		}
		var sc Schedule
		if ok, err := getJSON(b, []byte(id), &sc); err != nil || !ok || sc.Key != key || sc.Config {
			return err
		}
		found = true
		return b.Delete([]byte(id))
	})
	return found, err
}

// SyncConfigSchedules makes the config's entries those given (by ID): new
// ones are added as given, entries no longer in the config are removed, and
// those still there keep their stored due time, so that a run missed while
// the bot was down is still seen as due.
func (s *Store) SyncConfigSchedules(want []Schedule) error {
	return s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketSchedules)
		if err != nil {
			return err
		}
		have, err := tx.schedules()
		if err != nil {
			return err
		}
		keep := map[string]bool{}
		for _, sc := range want {
			if err := checkKey(sc.Key); err != nil {
				return err
			}
			sc.Config = true
			keep[sc.ID] = true
			var old Schedule
			if ok, err := getJSON(b, []byte(sc.ID), &old); err != nil {
				return err
			} else if ok && old.Config {
				continue
			}
			if err := putJSON(b, []byte(sc.ID), sc); err != nil {
				return err
			}
		}
		for _, sc := range have {
			if sc.Config && !keep[sc.ID] {
				if err := b.Delete([]byte(sc.ID)); err != nil {
					return fmt.Errorf("remove schedule %s: %w", sc.ID, err)
				}
			}
		}
		return nil
	})
}

// FireSchedule is a schedule's one durable step per run: if schedule id is
// still due at due, it queues p in the schedule's session and moves the
// schedule on to next (a zero next removes it: a one-off has run), in one
// transaction. fired is false when nothing was queued: the schedule is gone
// or was moved on meanwhile (removed from a button, run already), or its
// previous run still waits in the queue (behind a long turn, or from
// before a restart), in which case it only moves on: a schedule never has
// two runs waiting. So a run is queued once, and a crash leaves either
// both steps or neither.
func (s *Store) FireSchedule(id string, due, next time.Time, p Prompt) (seq uint64, fired bool, err error) {
	err = s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketSchedules)
		if err != nil {
			return err
		}
		var sc Schedule
		if ok, err := getJSON(b, []byte(id), &sc); err != nil || !ok || !sc.Next.Equal(due) {
			return err
		}
		waiting, err := tx.scheduledRunWaiting(sc.Key, id)
		if err != nil {
			return err
		}
		if !waiting {
			if seq, err = tx.enqueuePrompt(sc.Key, p); err != nil {
				return err
			}
			fired = true
		}
		if next.IsZero() {
			return b.Delete([]byte(id))
		}
		sc.Next = next
		return putJSON(b, []byte(id), sc)
	})
	if err != nil {
		return 0, false, err
	}
	return seq, fired, nil
}

// enqueueBounded queues p under key unless key's queue already holds max
// prompts of p's origin kind (p has one): a flood of triggers must not
// pile up runs.
func (t *txn) enqueueBounded(key string, p Prompt, max int) (seq uint64, ok bool, err error) {
	all, err := t.bucket(bucketPrompts)
	if err != nil {
		return 0, false, err
	}
	queued, err := appendQueue(nil, all, key)
	if err != nil {
		return 0, false, err
	}
	n := 0
	for _, qp := range queued {
		if qp.Origin != nil && qp.Origin.Kind == p.Origin.Kind {
			n++
		}
	}
	if n >= max {
		return 0, false, nil
	}
	seq, err = t.enqueuePrompt(key, p)
	return seq, err == nil, err
}

// scheduledRunWaiting reports whether key's queue holds a run of schedule id.
func (t *txn) scheduledRunWaiting(key, id string) (bool, error) {
	all, err := t.bucket(bucketPrompts)
	if err != nil {
		return false, err
	}
	queued, err := appendQueue(nil, all, key)
	if err != nil {
		return false, err
	}
	for _, qp := range queued {
		if qp.Origin != nil && qp.Origin.ScheduleID == id {
			return true, nil
		}
	}
	return false, nil
}

func (t *txn) schedules() ([]Schedule, error) {
	b, err := t.bucket(bucketSchedules)
	if err != nil {
		return nil, err
	}
	var out []Schedule
	err = b.ForEach(func(k, _ []byte) error {
		var sc Schedule
		if _, err := getJSON(b, k, &sc); err != nil {
			return fmt.Errorf("schedule %q: %w", k, err)
		}
		out = append(out, sc)
		return nil
	})
	sortSchedules(out)
	return out, err
}

// sortSchedules orders by due time, then id, so lists are stable.
func sortSchedules(s []Schedule) {
	slices.SortFunc(s, func(a, b Schedule) int {
		if c := a.Next.Compare(b.Next); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// AnnouncedRun records the first message of queued run seq of key, so that
// a restart before the run begins replies to it instead of announcing the
// run again. found is false when the run is no longer queued.
func (s *Store) AnnouncedRun(key string, seq uint64, messageID int) (found bool, err error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	err = s.update(func(tx *txn) error {
		all, err := tx.bucket(bucketPrompts)
		if err != nil {
			return err
		}
		q := all.Bucket([]byte(key))
		if q == nil {
			return nil
		}
		var p Prompt
		if ok, err := getJSON(q, u64(seq), &p); err != nil || !ok {
			return err
		}
		p.MessageID, found = messageID, true
		return putJSON(q, u64(seq), p)
	})
	return found, err
}
