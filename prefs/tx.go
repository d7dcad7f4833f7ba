package prefs

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// txn is one transaction on the store. The steps a Store method takes through it commit together
// or not at all; it is never kept after the method returns, and never leaves the package: an
// operation that needs several steps at once is a Store method of its own.
type txn struct {
	tx *bolt.Tx
	s  *Store
}

// update runs fn in a single read-write transaction: if fn returns an error (or panics), nothing
// it did is kept. fn must use only tx, never the Store's methods (that would deadlock), and
// should be quick: writers queue behind it.
func (s *Store) update(fn func(tx *txn) error) error {
	if err := s.check(); err != nil {
		return err
	}
	err := s.db.Update(func(btx *bolt.Tx) error { return fn(&txn{tx: btx, s: s}) })
	if err == nil {
		s.commits.Add(1)
	}
	return s.wrap(err)
}

// view runs fn in a read-only transaction; the txn write methods fail inside it.
func (s *Store) view(fn func(tx *txn) error) error {
	if err := s.check(); err != nil {
		return err
	}
	err := s.db.View(func(btx *bolt.Tx) error { return fn(&txn{tx: btx, s: s}) })
	return s.wrap(err)
}

func (s *Store) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("state file %s: %w", s.path, errClosed)
	}
	return nil
}

func (s *Store) wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		// Close raced with this call.
		return fmt.Errorf("state file %s: %w", s.path, errClosed)
	default:
		return fmt.Errorf("state file %s: %w", s.path, err)
	}
}

// bucket returns a top-level bucket; they all exist after migration, so absence means the file
// was tampered with while open.
func (t *txn) bucket(name []byte) (*bolt.Bucket, error) {
	b := t.tx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("bucket %s missing", name)
	}
	return b, nil
}

func checkKey(key string) error {
	if key == "" {
		return errors.New("empty session key")
	}
	if len(key) > bolt.MaxKeySize {
		return fmt.Errorf("session key of %d bytes is too long", len(key))
	}
	return nil
}

// getJSON decodes the value at key into v; found is false when there is none.
func getJSON(b *bolt.Bucket, key []byte, v any) (found bool, err error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("decode %q: %w", key, err)
	}
	return true, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", key, err)
	}
	if err := b.Put(key, raw); err != nil {
		return fmt.Errorf("put %q: %w", key, err)
	}
	return nil
}

// getDollars reads a stored amount (0 when absent).
func getDollars(b *bolt.Bucket, key []byte) (float64, error) {
	raw := b.Get(key)
	if raw == nil {
		return 0, nil
	}
	bits, err := readU64(raw)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", key, err)
	}
	return math.Float64frombits(bits), nil
}

// addDollars adds usd (finite, >= 0) to a stored amount and returns the sum.
func addDollars(b *bolt.Bucket, key []byte, usd float64) (float64, error) {
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd < 0 {
		return 0, fmt.Errorf("invalid cost %v for %q", usd, key)
	}
	total, err := getDollars(b, key)
	if err != nil {
		return 0, err
	}
	total += usd
	if err := b.Put(key, binary.BigEndian.AppendUint64(nil, math.Float64bits(total))); err != nil {
		return 0, fmt.Errorf("put %q: %w", key, err)
	}
	return total, nil
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), v) }

func readU64(raw []byte) (uint64, error) {
	if len(raw) != 8 {
		return 0, fmt.Errorf("stored number is %d bytes, want 8", len(raw))
	}
	return binary.BigEndian.Uint64(raw), nil
}
