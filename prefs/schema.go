package prefs

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// schemaVersion is the layout this code reads and writes. Bump it together with a new entry
// in migrations.
const schemaVersion uint64 = 5

// Bucket names. Per-chat data is keyed by the session key the bot forms ("chatid" or
// "chatid:threadid").
var (
	bucketMeta     = []byte("meta")     // schema_version → uint64 BE
	bucketPrefs    = []byte("prefs")    // session key → JSON Prefs
	bucketSessions = []byte("sessions") // session key → JSON SessionRecord
	bucketCosts    = []byte("costs")    // session key → float64 bits BE
	bucketState    = []byte("state")    // "offset" → int64 BE
	bucketHandled  = []byte("handled")  // update id → insertion seq (both uint64 BE)
	bucketHandSeq  = []byte("handled_order")
	bucketPrompts  = []byte("prompts")  // session key → bucket of seq → JSON Prompt; seq is global
	bucketLive     = []byte("live")     // chat id ‖ message id → JSON LiveMessage
	bucketCooldown = []byte("cooldown") // session key → JSON Cooldown (since version 2)
	// schedule id → JSON Schedule (since version 3); the bucket's sequence numbers user schedules
	bucketSchedules = []byte("schedules")
	// trigger delivery id → until when it is remembered, unix nanoseconds BE (since version 4)
	bucketDeliveries = []byte("deliveries")
	// session key → bucket of seq → one turn of its transcript, as the caller
	// encoded it (since version 5; transcripts.go)
	bucketTranscripts = []byte("transcripts")

	keyVersion = []byte("schema_version")
	keyOffset  = []byte("offset")
)

// migrations[v] lifts a file from version v to v+1. Version 0 is a file without a meta bucket:
// freshly created, or written before versioning existed.
var migrations = []func(tx *bolt.Tx) error{
	0: func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketPrefs, bucketSessions, bucketCosts, bucketState,
			bucketHandled, bucketHandSeq, bucketPrompts, bucketLive} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		return nil
	},
	1: func(tx *bolt.Tx) error { return createBucket(tx, bucketCooldown) },
	2: func(tx *bolt.Tx) error { return createBucket(tx, bucketSchedules) },
	3: func(tx *bolt.Tx) error { return createBucket(tx, bucketDeliveries) },
	4: func(tx *bolt.Tx) error { return createBucket(tx, bucketTranscripts) },
}

func createBucket(tx *bolt.Tx, name []byte) error {
	if _, err := tx.CreateBucketIfNotExists(name); err != nil {
		return fmt.Errorf("create bucket %s: %w", name, err)
	}
	return nil
}

func init() {
	if uint64(len(migrations)) != schemaVersion {
		panic("prefs: migrations and schemaVersion disagree")
	}
}

// readVersion reports the schema version recorded in the file; 0 when there is none yet.
func readVersion(tx *bolt.Tx) (uint64, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		return 0, nil
	}
	raw := meta.Get(keyVersion)
	if raw == nil {
		return 0, nil
	}
	if len(raw) != 8 {
		return 0, fmt.Errorf("schema version is %d bytes, want 8", len(raw))
	}
	return binary.BigEndian.Uint64(raw), nil
}

// migrate brings the file to schemaVersion in a single transaction, so a crash half-way leaves
// the old version to be migrated again.
func (s *Store) migrate(ctx context.Context) error {
	var from uint64
	err := s.db.Update(func(tx *bolt.Tx) error {
		v, err := readVersion(tx)
		if err != nil {
			return corruptError(s.path, err)
		}
		from = v
		if v > schemaVersion {
			// Checked read-only before, but the file could have been swapped in between.
			return newerSchemaError(s.path, v)
		}
		for ; v < schemaVersion; v++ {
			if err := migrations[v](tx); err != nil {
				return fmt.Errorf("schema %d to %d: %w", v, v+1, err)
			}
		}
		if from == schemaVersion {
			return nil
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, binary.BigEndian.AppendUint64(nil, schemaVersion))
	})
	if err != nil {
		if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNewerSchema) {
			return err
		}
		return fmt.Errorf("migrate state file %s: %w", s.path, err)
	}
	if from != schemaVersion {
		s.opts.log.InfoContext(ctx, "state file schema migrated", "path", s.path, "from", from, "to", schemaVersion)
	}
	return nil
}
