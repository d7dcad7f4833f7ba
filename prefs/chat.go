package prefs

import (
	"fmt"
	"slices"
	"time"
)

// PlanMode is a chat's plan-mode preference.
type PlanMode string

// Plan modes; PlanUnset means "use the configured default".
const (
	PlanUnset PlanMode = ""
	PlanOn    PlanMode = "on"
	PlanOff   PlanMode = "off"
	PlanAuto  PlanMode = "auto"
)

// valid reports whether m is one of the defined modes (PlanUnset included).
func (m PlanMode) valid() bool {
	switch m {
	case PlanUnset, PlanOn, PlanOff, PlanAuto:
		return true
	}
	return false
}

// Prefs are a session key's own settings. The zero value of each field means "not set here; use
// the configured default".
type Prefs struct {
	PlanMode PlanMode `json:"plan_mode,omitempty"`
	Model    string   `json:"model,omitempty"`
	Verbose  *bool    `json:"verbose,omitempty"` // a pointer because false is a real choice
	WorkDir  string   `json:"work_dir,omitempty"`
	// Stream is how Claude's text is shown as it is written: "off",
	// "edits" or "drafts"; "" is the configured default.
	Stream string `json:"stream,omitempty"`
	// Host names the machine the chat works on ([hosts.NAME], or "local");
	// "" is the configured default ([claude] host). WorkDir is a path on it.
	Host string `json:"host,omitempty"`
	// Speak is when answers also come as voice notes: "on", "off" or
	// "auto" (answers to voice notes); "" is the default, auto.
	Speak string `json:"speak,omitempty"`
	// Steer sends a message written while a turn runs into that turn
	// (/steer on); false, the default, queues it.
	Steer bool `json:"steer,omitempty"`
	// Engine names the agent the chat runs ("claude", "codex"); "" is the
	// configured default. Parked is the session each other engine had
	// when the chat switched away from it, by engine (SwitchEngine).
	Engine string            `json:"engine,omitempty"`
	Parked map[string]string `json:"parked,omitempty"`
}

// isZero reports whether nothing is set.
func (p Prefs) isZero() bool {
	return p.PlanMode == PlanUnset && p.Model == "" && p.Verbose == nil && p.WorkDir == "" && p.Stream == "" && p.Host == "" && p.Speak == "" && !p.Steer &&
		p.Engine == "" && len(p.Parked) == 0
}

// SessionRecord is what is remembered about a session key's Claude session.
type SessionRecord struct {
	// SessionID is the Claude session to resume; "" once it was given up on.
	SessionID string    `json:"session_id,omitempty"`
	Updated   time.Time `json:"updated"`
	// ResumeFailures counts failed resumes of SessionID since it was set.
	ResumeFailures int `json:"resume_failures,omitempty"`
	// DroppedID is the last id given up on after repeated failed resumes, kept for diagnostics.
	DroppedID string    `json:"dropped_id,omitempty"`
	DroppedAt time.Time `json:"dropped_at,omitzero"`
	// Title (the prompt that started it), Started and WorkDir describe the
	// current session for /sessions.
	Title   string    `json:"title,omitempty"`
	Started time.Time `json:"started,omitzero"`
	WorkDir string    `json:"work_dir,omitempty"`
	// History holds earlier sessions, newest first, at most maxHistory.
	History []PastSession `json:"history,omitempty"`
	// Totals is the running total Claude Code last reported for each of
	// these sessions (current and History), by session id: it keeps growing
	// across turns and --resume, so a turn's cost is the increase over the
	// stored figure (see Store.RecordTurnCost).
	Totals map[string]float64 `json:"totals,omitempty"`
}

// PastSession is an earlier Claude session of a chat, which /sessions can
// bring back.
type PastSession struct {
	ID      string    `json:"id"`
	Title   string    `json:"title,omitempty"`
	WorkDir string    `json:"work_dir,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// maxHistory bounds the sessions kept per chat besides the current one.
const maxHistory = 10

// archive moves the current session into the history (newest first).
func (rec *SessionRecord) archive(now time.Time) {
	if rec.SessionID == "" {
		return
	}
	past := PastSession{ID: rec.SessionID, Title: rec.Title, WorkDir: rec.WorkDir, Started: rec.Started, Ended: now}
	rec.History = append([]PastSession{past}, rec.withoutID(rec.SessionID)...)
	if len(rec.History) > maxHistory {
		rec.History = rec.History[:maxHistory]
	}
	rec.SessionID, rec.Title, rec.WorkDir, rec.Started, rec.ResumeFailures = "", "", "", time.Time{}, 0
}

func (rec *SessionRecord) withoutID(id string) []PastSession {
	out := make([]PastSession, 0, len(rec.History))
	for _, p := range rec.History {
		if p.ID != id {
			out = append(out, p)
		}
	}
	return out
}

// Prefs returns key's preferences; all unset if none were stored.
func (s *Store) Prefs(key string) (p Prefs, err error) {
	err = s.view(func(tx *txn) error { p, err = tx.prefs(key); return err })
	return p, err
}

// SetPlanMode sets key's plan mode; PlanUnset clears it, an undefined mode is refused.
func (s *Store) SetPlanMode(key string, m PlanMode) error {
	return s.updatePrefs(key, func(p *Prefs) { p.PlanMode = m })
}

// SetModel sets key's model; "" clears it.
func (s *Store) SetModel(key, model string) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Model = model })
}

// SetVerbose sets key's verbose flag; nil clears it.
func (s *Store) SetVerbose(key string, v *bool) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Verbose = v })
}

// SetStream sets key's streaming mode; "" clears it. The bot checks the value.
func (s *Store) SetStream(key, mode string) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Stream = mode })
}

// SetSteer sets whether key's messages sent mid-turn go into the turn.
func (s *Store) SetSteer(key string, on bool) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Steer = on })
}

// SetSpeak sets key's voice replies ("on", "off", "auto"); "" clears
// them. The bot checks the value.
func (s *Store) SetSpeak(key, mode string) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Speak = mode })
}

// SetWorkDir sets key's working directory; "" returns to the config's.
func (s *Store) SetWorkDir(key, dir string) error {
	return s.updatePrefs(key, func(p *Prefs) { p.WorkDir = dir })
}

// SetHost moves key to the machine name ("" returns to the config's) and,
// in the same write, forgets its working directory: a path on one machine
// means nothing on another.
func (s *Store) SetHost(key, name string) error {
	return s.updatePrefs(key, func(p *Prefs) { p.Host, p.WorkDir = name, "" })
}

// Session returns key's session record; ok is true only if it holds a session id to resume.
// The record is returned even when ok is false, so DroppedID and the history can be reported.
func (s *Store) Session(key string) (rec SessionRecord, ok bool, err error) {
	err = s.view(func(tx *txn) error { rec, ok, err = tx.session(key); return err })
	return rec, ok, err
}

// StartSession records id as key's current session, with what /sessions shows of it. A session
// it replaces goes into the history, and id leaves the history if it was there (it is current
// again). A different id than before starts with a clean failure count; the same id again
// keeps its count, title and working directory.
func (s *Store) StartSession(key, id, title, workDir string) error {
	if id == "" {
		return fmt.Errorf("empty session id for %q (use ClearSession)", key)
	}
	return s.update(func(tx *txn) error {
		rec, _, err := tx.session(key)
		if err != nil {
			return err
		}
		now := s.opts.now()
		if rec.SessionID != id {
			rec.archive(now)
			rec.History = rec.withoutID(id)
			rec.SessionID, rec.Started, rec.Title, rec.WorkDir = id, now, title, workDir
		} else {
			if rec.Title == "" {
				rec.Title = title
			}
			if rec.WorkDir == "" {
				rec.WorkDir = workDir
			}
		}
		rec.Updated = now
		return tx.putSession(key, rec)
	})
}

// ClearSession forgets key's current session without keeping it in the history (a session that
// cannot be resumed); the history stays.
func (s *Store) ClearSession(key string) error {
	return s.update(func(tx *txn) error {
		rec, _, err := tx.session(key)
		if err != nil {
			return err
		}
		rec.SessionID, rec.Title, rec.WorkDir, rec.Started, rec.ResumeFailures = "", "", "", time.Time{}, 0
		if len(rec.History) == 0 {
			b, err := tx.bucket(bucketSessions)
			if err != nil {
				return err
			}
			return b.Delete([]byte(key)) // nothing left worth keeping
		}
		rec.Updated = s.opts.now()
		return tx.putSession(key, rec)
	})
}

// ArchiveSession ends key's current session (/new): it goes into the history, from where
// /sessions can bring it back.
func (s *Store) ArchiveSession(key string) error {
	return s.update(func(tx *txn) error {
		rec, _, err := tx.session(key)
		if err != nil {
			return err
		}
		rec.archive(s.opts.now())
		rec.Updated = s.opts.now()
		return tx.putSession(key, rec)
	})
}

// MarkResumeFailed records that resuming id failed. retry reports whether id is still stored
// and may be tried again; after the second failure it is dropped. A call for an id that is no
// longer current changes nothing and returns false.
func (s *Store) MarkResumeFailed(key, id string) (retry bool, err error) {
	err = s.update(func(tx *txn) error {
		rec, ok, err := tx.session(key)
		if err != nil {
			return err
		}
		if !ok || rec.SessionID != id {
			return nil
		}
		now := s.opts.now()
		rec.Updated = now
		rec.ResumeFailures++
		if rec.ResumeFailures >= s.opts.maxResumeFailures {
			rec.DroppedID, rec.DroppedAt = id, now
			rec.SessionID, rec.ResumeFailures = "", 0
		}
		retry = rec.SessionID != ""
		return tx.putSession(key, rec)
	})
	return retry, err
}

// Cost returns the total cost in USD of key's turns (see RecordTurnCost).
func (s *Store) Cost(key string) (usd float64, err error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	err = s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketCosts)
		if err != nil {
			return err
		}
		usd, err = getDollars(b, []byte(key))
		return err
	})
	return usd, err
}

// KnownChats returns, sorted, every session key that has preferences, a session record, a cost
// or queued prompts.
func (s *Store) KnownChats() (keys []string, err error) {
	seen := map[string]bool{}
	err = s.view(func(tx *txn) error {
		for _, name := range [][]byte{bucketPrefs, bucketSessions, bucketCosts, bucketPrompts} {
			b, err := tx.bucket(name)
			if err != nil {
				return err
			}
			c := b.Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				seen[string(k)] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	keys = make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, nil
}

// updatePrefs applies fn to key's preferences and stores the result (removing the entry when
// nothing is left set). An invalid plan mode is refused.
func (s *Store) updatePrefs(key string, fn func(*Prefs)) error {
	return s.update(func(tx *txn) error {
		p, err := tx.prefs(key)
		if err != nil {
			return err
		}
		fn(&p)
		if !p.PlanMode.valid() {
			return fmt.Errorf("invalid plan mode %q", p.PlanMode)
		}
		b, err := tx.bucket(bucketPrefs)
		if err != nil {
			return err
		}
		if p.isZero() {
			return b.Delete([]byte(key))
		}
		return putJSON(b, []byte(key), p)
	})
}

func (t *txn) prefs(key string) (Prefs, error) {
	var p Prefs
	if err := checkKey(key); err != nil {
		return p, err
	}
	b, err := t.bucket(bucketPrefs)
	if err != nil {
		return p, err
	}
	_, err = getJSON(b, []byte(key), &p)
	return p, err
}

// session is Store.Session inside a transaction.
func (t *txn) session(key string) (rec SessionRecord, ok bool, err error) {
	if err := checkKey(key); err != nil {
		return rec, false, err
	}
	b, err := t.bucket(bucketSessions)
	if err != nil {
		return rec, false, err
	}
	if _, err := getJSON(b, []byte(key), &rec); err != nil {
		return rec, false, err
	}
	return rec, rec.SessionID != "", nil
}

func (t *txn) putSession(key string, rec SessionRecord) error {
	b, err := t.bucket(bucketSessions)
	if err != nil {
		return err
	}
	return putJSON(b, []byte(key), rec)
}
