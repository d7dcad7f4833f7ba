package prefs

import (
	"encoding/json"
	"fmt"
	"slices"
)

// A project's own permission rules, as the bot keeps track of them
// (chat/projectrules.go): the rules the owner saved with Always allow in a
// directory, and which set of a project's rules each conversation was
// told of. Both live in the state bucket under prefixes of their own.

func ownRulesKey(machine, dir string) []byte {
	return []byte("ownrules:" + machine + "\x00" + dir)
}

func rulesToldKey(key, machine, dir string) []byte {
	return []byte("rulestold:" + key + "\x00" + machine + "\x00" + dir)
}

// AddOwnRules remembers rules the owner saved with Always allow into the
// project settings of dir on machine, beside those saved before.
func (s *Store) AddOwnRules(machine, dir string, rules []string) error {
	return s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		k := ownRulesKey(machine, dir)
		var have []string
		if v := b.Get(k); v != nil {
			if err := json.Unmarshal(v, &have); err != nil {
				return fmt.Errorf("own rules of %s: %w", dir, err)
			}
		}
		for _, r := range rules {
			if !slices.Contains(have, r) {
				have = append(have, r)
			}
		}
		v, err := json.Marshal(have)
		if err != nil {
			return fmt.Errorf("own rules of %s: %w", dir, err)
		}
		return b.Put(k, v)
	})
}

// OwnRules are the rules AddOwnRules remembered for dir on machine.
func (s *Store) OwnRules(machine, dir string) (rules []string, err error) {
	err = s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		if v := b.Get(ownRulesKey(machine, dir)); v != nil {
			if err := json.Unmarshal(v, &rules); err != nil {
				return fmt.Errorf("own rules of %s: %w", dir, err)
			}
		}
		return nil
	})
	return rules, err
}

// maxToldSets bounds the sets remembered per conversation and directory.
const maxToldSets = 32

// TellRulesOnce records that conversation key is told of the set of
// project rules named digest in dir on machine; first is false when it was
// told of that same set there before (one of the last maxToldSets).
func (s *Store) TellRulesOnce(key, machine, dir, digest string) (first bool, err error) {
	err = s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		k := rulesToldKey(key, machine, dir)
		var told []string
		if v := b.Get(k); v != nil {
			if err := json.Unmarshal(v, &told); err != nil {
				return fmt.Errorf("rules told in %s: %w", dir, err)
			}
		}
		if slices.Contains(told, digest) {
			return nil
		}
		first = true
		told = append(told, digest)
		if len(told) > maxToldSets {
			told = told[len(told)-maxToldSets:]
		}
		v, err := json.Marshal(told)
		if err != nil {
			return fmt.Errorf("rules told in %s: %w", dir, err)
		}
		return b.Put(k, v)
	})
	return first, err
}
