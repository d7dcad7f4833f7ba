package prefs

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// DaySpend is what turns cost on one day: in one chat and in all.
type DaySpend struct {
	Day       time.Time // midnight, now's zone
	Chat, All float64
}

// MonthSpend is each day of now's month up to now's day, for key and for
// all chats (the web view's chart; Spending sums the same keys).
func (s *Store) MonthSpend(key string, now time.Time) ([]DaySpend, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	y, m, d := now.Date()
	out := make([]DaySpend, d)
	for i := range out {
		out[i].Day = time.Date(y, m, i+1, 0, 0, 0, 0, now.Location())
	}
	month := []byte(spendPrefix + now.Format("2006-01-"))
	err := s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		c := b.Cursor()
		for k, _ := c.Seek(month); k != nil && bytes.HasPrefix(k, month); k, _ = c.Next() {
			day, chat, _ := strings.Cut(string(k[len(spendPrefix):]), ":")
			if chat != "" && chat != key {
				continue
			}
			t, err := time.ParseInLocation(time.DateOnly, day, now.Location())
			if err != nil || t.Day() > d {
				continue
			}
			usd, err := getDollars(b, k)
			if err != nil {
				return err
			}
			if chat != "" {
				out[t.Day()-1].Chat += usd
			} else {
				out[t.Day()-1].All += usd
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the month's spend of %q: %w", key, err)
	}
	return out, nil
}
