package prefs

import (
	"crypto/rand"
	"fmt"
	"time"
)

// bucketHeld: session key → JSON HeldSession. Made by the first write, so
// the schema version stays (a file without it has no held sessions, and an
// older bot ignores it).
var bucketHeld = []byte("held")

// HeldSession is a Claude process that outlives the bot (docs/durability.md):
// what a bot started later needs to attach to it again and carry on its turn.
type HeldSession struct {
	Key      string `json:"key"`
	ChatID   int64  `json:"chat_id"`
	ThreadID int    `json:"thread_id,omitempty"`
	Machine  string `json:"machine"`
	// Engine is the engine whose process it is ("claude", "codex"; "" in
	// records written before there were two: Claude Code's).
	Engine string `json:"engine,omitempty"`
	// Handle is the engine's name for the process; it holds the secret of
	// its holder, so it is kept here only (the file is 0600).
	Handle  string `json:"handle"`
	WorkDir string `json:"work_dir,omitempty"` // the directory it started in, links resolved
	// Grant is the Key of the process's send_file grant ("": none): a bot
	// started later gives it back, for the process's MCP server still
	// has its secret.
	Grant   string    `json:"grant,omitempty"`
	Started time.Time `json:"started"`

	// Turn is the turn Claude was given and whose answer is not delivered
	// yet; nil between turns.
	Turn *HeldTurn `json:"turn,omitempty"`
}

// HeldTurn is a running turn of a held session.
type HeldTurn struct {
	// From is the journal record of its prompt: a re-attach replays from it.
	From uint64 `json:"from"`
	// MessageID is the user's message it answers; Text its prompt.
	MessageID int    `json:"message_id"`
	Text      string `json:"text"`
	UserID    int64  `json:"user_id,omitempty"`
	// Sent is the prompt as Claude is given it (Text with a command
	// expanded): sent again when the bot stopped before it reached Claude.
	Sent string `json:"sent,omitempty"`
	// Started is when the turn began (its elapsed time goes on from it).
	Started time.Time `json:"started"`
	// Delivered is how many messages of its answer (or error) reached
	// Telegram, Answered that all did: a bot started later sends only the
	// rest (docs/durability.md, "exactly once").
	Delivered int  `json:"delivered,omitempty"`
	Answered  bool `json:"answered,omitempty"`
	// PromptID is the id the agent knows its prompt by (engine.PromptIDs),
	// "" when none: a turn carried on after a restart offers Undo by it.
	PromptID string `json:"prompt_id,omitempty"`
	// Steered: its prompt is a message steered into the turn before, which
	// the agent runs on its own (chat's steer): never sent again, though
	// its replay holds no prompt.
	Steered bool `json:"steered,omitempty"`
}

// PutHeld records h, replacing the record of its session.
func (s *Store) PutHeld(h HeldSession) error {
	if err := checkKey(h.Key); err != nil {
		return err
	}
	return s.update(func(tx *txn) error {
		b, err := tx.tx.CreateBucketIfNotExists(bucketHeld)
		if err != nil {
			return fmt.Errorf("create bucket %s: %w", bucketHeld, err)
		}
		return putJSON(b, []byte(h.Key), h)
	})
}

// RemoveHeld forgets the held process of a session (it ended); a missing
// record is not an error.
func (s *Store) RemoveHeld(key string) error {
	return s.update(func(tx *txn) error {
		if b := tx.tx.Bucket(bucketHeld); b != nil {
			return b.Delete([]byte(key))
		}
		return nil
	})
}

// ListHeld returns every held session, in key order.
func (s *Store) ListHeld() (out []HeldSession, err error) {
	err = s.view(func(tx *txn) error {
		b := tx.tx.Bucket(bucketHeld)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			var h HeldSession
			if _, err := getJSON(b, k, &h); err != nil {
				return err
			}
			out = append(out, h)
			return nil
		})
	})
	return out, err
}

// Seed is a random secret of 32 bytes kept in the state file under name,
// made on first use: what must be the same after a restart and unguessable
// (the approval buttons' tokens of a held session, see approvals.Config).
func (s *Store) Seed(name string) (seed []byte, err error) {
	err = s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		key := []byte("seed:" + name)
		if v := b.Get(key); len(v) == 32 {
			seed = append([]byte(nil), v...)
			return nil
		}
		seed = make([]byte, 32)
		if _, err := rand.Read(seed); err != nil {
			return fmt.Errorf("make seed %s: %w", name, err)
		}
		return b.Put(key, seed)
	})
	return seed, err
}
