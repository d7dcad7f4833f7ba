package prefs

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Prompt is a user message accepted for a session but not yet run to completion. It is stored
// so that a crash between accepting and running it does not lose it.
type Prompt struct {
	UpdateID  int64     `json:"update_id"`
	ChatID    int64     `json:"chat_id"`
	ThreadID  int       `json:"thread_id,omitempty"`
	MessageID int       `json:"message_id"`
	UserID    int64     `json:"user_id"`
	Text      string    `json:"text"`
	Date      time.Time `json:"date"`
	Files     []File    `json:"files,omitempty"`
	// Album is Telegram's media_group_id: the items of an album arrive as
	// separate messages and are run as one prompt.
	Album string `json:"album,omitempty"`
	// Origin is set on a prompt no one typed: a schedule's or a trigger's
	// run (MessageID is then 0 until its first message is sent).
	Origin *Origin `json:"origin,omitempty"`
	// Quote is what the message replies to (the replied text, or the part
	// the user quoted), marked for Claude, as it goes after the text.
	Quote string `json:"quote,omitempty"`
	// SteerID is the id it went to a running turn under (chat's steer):
	// the agent may hold or have run it, so a bot started later asks the
	// agent it re-attached to before running it (docs/durability.md).
	SteerID string `json:"steer_id,omitempty"`
}

// File is a photo or document sent with a prompt, downloaded when the
// prompt runs (Telegram keeps it downloadable for at least an hour).
type File struct {
	Kind   string `json:"kind"` // "photo", "document", or a recording: "voice", "audio", "video_note"
	FileID string `json:"file_id"`
	Name   string `json:"name,omitempty"`
	MIME   string `json:"mime,omitempty"`
	Size   int64  `json:"size,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	// Duration is a recording's length in seconds, as Telegram gives it.
	Duration int `json:"duration,omitempty"`
}

// QueuedPrompt is a stored Prompt with its session key and sequence number. Sequence numbers
// are unique across the whole store and increase with enqueue order.
type QueuedPrompt struct {
	Key string
	Seq uint64
	Prompt
}

// Offset returns the stored Telegram getUpdates offset (0 if none).
func (s *Store) Offset() (offset int64, err error) {
	err = s.view(func(tx *txn) error { offset, err = tx.offset(); return err })
	return offset, err
}

// SetOffset stores the Telegram getUpdates offset as given.
func (s *Store) SetOffset(offset int64) error {
	return s.update(func(tx *txn) error { return tx.setOffset(offset) })
}

// Handled reports whether updateID is in the window of recently handled updates.
func (s *Store) Handled(updateID int64) (ok bool, err error) {
	err = s.view(func(tx *txn) error { ok, err = tx.handled(updateID); return err })
	return ok, err
}

// AcceptUpdate is the poller's single durable step per update: it marks updateID handled, sets
// the offset to updateID+1 and, if p is not nil and the update is fresh, queues p under key.
// seq is the queued prompt's sequence number (0 when nothing was queued); fresh is false if the
// update had already been handled, in which case only the offset is written.
//
// The handled window keeps the most recent 1000 ids in the order they were accepted, not by
// their value, and the offset is set, not raised: updates are accepted in the order they arrive,
// and Telegram may start ids afresh at a lower value after a quiet week.
func (s *Store) AcceptUpdate(updateID int64, key string, p *Prompt) (seq uint64, fresh bool, err error) {
	err = s.update(func(tx *txn) error {
		if fresh, err = tx.markHandled(updateID); err != nil {
			return err
		}
		if err := tx.setOffset(updateID + 1); err != nil {
			return err
		}
		if !fresh || p == nil {
			return nil
		}
		seq, err = tx.enqueuePrompt(key, *p)
		return err
	})
	if err != nil {
		return 0, false, err
	}
	return seq, fresh, nil
}

// AllPendingPrompts returns every queued prompt of every session key, oldest first. Sequence
// numbers are unique across the store and increase with the order prompts were accepted, also
// across restarts.
func (s *Store) AllPendingPrompts() (ps []QueuedPrompt, err error) {
	err = s.view(func(tx *txn) error { ps, err = tx.allPendingPrompts(); return err })
	return ps, err
}

// EditPrompt replaces the text of a queued prompt (the user edited the message before it ran).
// found is false when it is no longer queued.
func (s *Store) EditPrompt(key string, seq uint64, text string) (found bool, err error) {
	return s.changePrompt(key, seq, func(p *Prompt) { p.Text = text })
}

// SteerPrompt records the id a queued prompt went to a running turn under ("" clears it: the
// agent dropped it, it is an ordinary queued prompt again). found is false when it is no
// longer queued.
func (s *Store) SteerPrompt(key string, seq uint64, id string) (found bool, err error) {
	return s.changePrompt(key, seq, func(p *Prompt) { p.SteerID = id })
}

// changePrompt applies change to a queued prompt, if it is still queued.
func (s *Store) changePrompt(key string, seq uint64, change func(*Prompt)) (found bool, err error) {
	if err := checkKey(key); err != nil {
		return false, err
	}
	err = s.update(func(tx *txn) error {
		all, err := tx.bucket(bucketPrompts)
		if err != nil {
			return err
		}
		q := all.Bucket([]byte(key))
		if q == nil || q.Get(u64(seq)) == nil {
			return nil
		}
		var p Prompt
		if err := json.Unmarshal(q.Get(u64(seq)), &p); err != nil {
			return fmt.Errorf("prompt %d of %q: %w", seq, key, err)
		}
		change(&p)
		found = true
		return putJSON(q, u64(seq), p)
	})
	return found, err
}

// DonePrompt removes finished (or abandoned) prompts from key's queue, all of them or none;
// removing one that is not there is not an error.
func (s *Store) DonePrompt(key string, seqs ...uint64) error {
	return s.update(func(tx *txn) error { return tx.donePrompts(key, seqs) })
}

// BeginTurn is the step between a prompt and Claude: it removes the turn's prompts (seqs) from
// key's queue and, if live is not nil, records the turn's progress message as live, in one
// transaction. A crash before it leaves the prompts queued, to run after the restart; a crash
// after it leaves a live message to be marked interrupted. So a prompt is never lost silently
// and never run twice.
func (s *Store) BeginTurn(key string, seqs []uint64, live *LiveMessage) error {
	return s.update(func(tx *txn) error {
		if err := tx.donePrompts(key, seqs); err != nil {
			return err
		}
		if live == nil {
			return nil
		}
		return tx.addLive(*live)
	})
}

func (t *txn) offset() (int64, error) {
	b, err := t.bucket(bucketState)
	if err != nil {
		return 0, err
	}
	raw := b.Get(keyOffset)
	if raw == nil {
		return 0, nil
	}
	v, err := readU64(raw)
	if err != nil {
		return 0, fmt.Errorf("offset: %w", err)
	}
	return int64(v), nil
}

func (t *txn) setOffset(offset int64) error {
	b, err := t.bucket(bucketState)
	if err != nil {
		return err
	}
	return b.Put(keyOffset, u64(uint64(offset)))
}

func (t *txn) handled(updateID int64) (bool, error) {
	b, err := t.bucket(bucketHandled)
	if err != nil {
		return false, err
	}
	return b.Get(u64(uint64(updateID))) != nil, nil
}

// markHandled adds updateID to the handled window and forgets the oldest entries beyond the
// window size. fresh is false if it was already there. The window is kept in the order ids were
// marked, not by their value: Telegram restarts update ids at random after a quiet week.
func (t *txn) markHandled(updateID int64) (fresh bool, err error) {
	handled, err := t.bucket(bucketHandled)
	if err != nil {
		return false, err
	}
	order, err := t.bucket(bucketHandSeq)
	if err != nil {
		return false, err
	}
	id := u64(uint64(updateID))
	if handled.Get(id) != nil {
		return false, nil
	}
	seq, err := order.NextSequence()
	if err != nil {
		return false, fmt.Errorf("handled sequence: %w", err)
	}
	if err := handled.Put(id, u64(seq)); err != nil {
		return false, fmt.Errorf("mark update %d handled: %w", updateID, err)
	}
	if err := order.Put(u64(seq), id); err != nil {
		return false, fmt.Errorf("mark update %d handled: %w", updateID, err)
	}
	// Keep the newest `window` entries: usually exactly one old entry goes per new one.
	window := uint64(t.s.opts.handledWindow)
	c := order.Cursor()
	for k, v := c.First(); k != nil; k, v = c.First() {
		old, err := readU64(k)
		if err != nil {
			return false, fmt.Errorf("handled window: %w", err)
		}
		if old+window > seq {
			break
		}
		if cur := handled.Get(v); cur != nil && string(cur) == string(k) {
			if err := handled.Delete(v); err != nil {
				return false, fmt.Errorf("prune handled window: %w", err)
			}
		}
		if err := order.Delete(k); err != nil {
			return false, fmt.Errorf("prune handled window: %w", err)
		}
	}
	return true, nil
}

// enqueuePrompt stores p in key's pending queue and returns its sequence number.
func (t *txn) enqueuePrompt(key string, p Prompt) (seq uint64, err error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	all, err := t.bucket(bucketPrompts)
	if err != nil {
		return 0, err
	}
	q, err := all.CreateBucketIfNotExists([]byte(key))
	if err != nil {
		return 0, fmt.Errorf("prompt queue of %q: %w", key, err)
	}
	// The sequence lives on the parent so that order is comparable across session keys.
	if seq, err = all.NextSequence(); err != nil {
		return 0, fmt.Errorf("prompt sequence: %w", err)
	}
	return seq, putJSON(q, u64(seq), p)
}

func (t *txn) allPendingPrompts() ([]QueuedPrompt, error) {
	all, err := t.bucket(bucketPrompts)
	if err != nil {
		return nil, err
	}
	var out []QueuedPrompt
	c := all.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil {
			continue // not a queue bucket
		}
		if out, err = appendQueue(out, all, string(k)); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b QueuedPrompt) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// appendQueue appends key's queue (a sub-bucket of all) in sequence order.
func appendQueue(out []QueuedPrompt, all *bolt.Bucket, key string) ([]QueuedPrompt, error) {
	q := all.Bucket([]byte(key))
	if q == nil {
		return out, nil
	}
	err := q.ForEach(func(k, v []byte) error {
		seq, err := readU64(k)
		if err != nil {
			return fmt.Errorf("prompt queue of %q: %w", key, err)
		}
		qp := QueuedPrompt{Key: key, Seq: seq}
		if err := json.Unmarshal(v, &qp.Prompt); err != nil {
			return fmt.Errorf("prompt %d of %q: %w", seq, key, err)
		}
		out = append(out, qp)
		return nil
	})
	return out, err
}

// donePrompts removes seqs from key's queue, and the queue itself once it is empty.
func (t *txn) donePrompts(key string, seqs []uint64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	all, err := t.bucket(bucketPrompts)
	if err != nil {
		return err
	}
	q := all.Bucket([]byte(key))
	if q == nil {
		return nil
	}
	for _, seq := range seqs {
		if err := q.Delete(u64(seq)); err != nil {
			return fmt.Errorf("remove prompt %d of %q: %w", seq, key, err)
		}
	}
	if k, _ := q.Cursor().First(); k == nil {
		// An empty queue should not keep the key "known".
		if err := all.DeleteBucket([]byte(key)); err != nil {
			return fmt.Errorf("remove empty prompt queue of %q: %w", key, err)
		}
	}
	return nil
}
