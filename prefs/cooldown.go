package prefs

import (
	"fmt"
	"time"
)

// Cooldown is a session's plan cooldown (see package cooldown), kept so
// that a bot restart does not let a model that keeps coming back too soon
// start over.
type Cooldown struct {
	Count int       `json:"count"`
	Until time.Time `json:"until"`
}

// SetCooldown stores key's cooldown; a count of 0 removes it.
func (s *Store) SetCooldown(key string, c Cooldown) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketCooldown)
		if err != nil {
			return err
		}
		if c.Count <= 0 {
			if err := b.Delete([]byte(key)); err != nil {
				return fmt.Errorf("remove cooldown of %q: %w", key, err)
			}
			return nil
		}
		return putJSON(b, []byte(key), c)
	})
}

// Cooldowns returns every stored cooldown by session key.
func (s *Store) Cooldowns() (map[string]Cooldown, error) {
	out := map[string]Cooldown{}
	err := s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketCooldown)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, _ []byte) error {
			var c Cooldown
			if _, err := getJSON(b, k, &c); err != nil {
				return fmt.Errorf("cooldown of %q: %w", k, err)
			}
			out[string(k)] = c
			return nil
		})
	})
	return out, err
}
