package prefs

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func TestCooldownRoundTrip(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	until := time.Date(2026, 11, 21, 12, 0, 30, 0, time.UTC)
	must(t, s.SetCooldown("42", Cooldown{Count: 2, Until: until}))
	must(t, s.SetCooldown("-100:7", Cooldown{Count: 1, Until: until}))
	must(t, s.SetCooldown("-100:7", Cooldown{})) // reset
	must(t, s.Close())

	s = openAt(t, path)
	got, err := s.Cooldowns()
	must(t, err)
	if len(got) != 1 || got["42"].Count != 2 || !got["42"].Until.Equal(until) {
		t.Fatalf("after reopening: %+v", got)
	}
	if err := s.SetCooldown("", Cooldown{Count: 1}); err == nil {
		t.Error("empty key accepted")
	}
}

// A file written by the previous schema (version 1, no cooldown bucket)
// gets the bucket and keeps its data.
func TestMigratesVersionOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	db, err := bolt.Open(path, 0o600, nil)
	must(t, err)
	must(t, db.Update(func(tx *bolt.Tx) error {
		if err := migrations[0](tx); err != nil {
			return err
		}
		if err := tx.Bucket(bucketPrefs).Put([]byte("42"), []byte(`{"model":"opus"}`)); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyVersion, binary.BigEndian.AppendUint64(nil, 1))
	}))
	must(t, db.Close())

	s := openAt(t, path)
	p, err := s.Prefs("42")
	must(t, err)
	if p.Model != "opus" {
		t.Errorf("prefs lost in migration: %+v", p)
	}
	must(t, s.SetCooldown("42", Cooldown{Count: 1, Until: time.Now()}))
	must(t, s.Close())
	if v, ok := storedVersion(t, path); !ok || v != schemaVersion {
		t.Errorf("version after migration = %d (present %v), want %d", v, ok, schemaVersion)
	}
}
