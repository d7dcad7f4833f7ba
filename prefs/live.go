package prefs

import (
	"encoding/binary"
	"fmt"
	"slices"
	"time"
)

// LiveKind says what a live message is, and so what to turn it into after a restart.
type LiveKind string

// Live message kinds.
const (
	LiveProgress LiveKind = "progress" // progress message of a running turn
	LivePrompt   LiveKind = "prompt"   // approval or question prompt awaiting a button press
	// LiveTurn is a turn Claude was given before its progress message
	// existed: MessageID is the user's message it answers. After a restart
	// a new message replies to it; there is nothing to edit.
	LiveTurn LiveKind = "turn"
)

// LiveMessage records a Telegram message that is only meaningful while this process runs, so
// that after a crash or restart it can be edited to say it was interrupted or has expired.
type LiveMessage struct {
	Kind       LiveKind  `json:"kind"`
	ChatID     int64     `json:"chat_id"`
	MessageID  int       `json:"message_id"`
	ThreadID   int       `json:"thread_id,omitempty"`
	SessionKey string    `json:"session_key"`
	Created    time.Time `json:"created"`
	// RequestID is the request of a prompt (LivePrompt): a held session's
	// request asked again after a restart takes its prompt back.
	RequestID string `json:"request_id,omitempty"`
}

func liveKey(chatID int64, messageID int) []byte {
	k := binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(chatID))
	return binary.BigEndian.AppendUint64(k, uint64(int64(messageID)))
}

// AddLive records m, replacing any record for the same chat and message. A zero Created is set
// to now.
func (s *Store) AddLive(m LiveMessage) error {
	return s.update(func(tx *txn) error { return tx.addLive(m) })
}

// RemoveLive forgets the record of a message; a missing record is not an error.
func (s *Store) RemoveLive(chatID int64, messageID int) error {
	return s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketLive)
		if err != nil {
			return err
		}
		return b.Delete(liveKey(chatID, messageID))
	})
}

// MoveLive replaces the record of message from with m in one transaction:
// a turn's record moves to its progress message once that exists, so a
// crash at any moment leaves exactly one of the two.
func (s *Store) MoveLive(chatID int64, from int, m LiveMessage) error {
	return s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketLive)
		if err != nil {
			return err
		}
		if err := b.Delete(liveKey(chatID, from)); err != nil {
			return err
		}
		return tx.addLive(m)
	})
}

// ListLive returns all live message records, oldest first.
func (s *Store) ListLive() (out []LiveMessage, err error) {
	err = s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketLive)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, _ []byte) error {
			var m LiveMessage
			if _, err := getJSON(b, k, &m); err != nil {
				return err
			}
			out = append(out, m)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b LiveMessage) int { return a.Created.Compare(b.Created) })
	return out, nil
}

func (t *txn) addLive(m LiveMessage) error {
	if m.Kind != LiveProgress && m.Kind != LivePrompt && m.Kind != LiveTurn {
		return fmt.Errorf("invalid live message kind %q", m.Kind)
	}
	if m.Created.IsZero() {
		m.Created = t.s.opts.now()
	}
	b, err := t.bucket(bucketLive)
	if err != nil {
		return err
	}
	return putJSON(b, liveKey(m.ChatID, m.MessageID), m)
}
