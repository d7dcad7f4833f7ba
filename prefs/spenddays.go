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
	err := s.view(func(tx *txn) error {
		return monthDays(tx, key, now, func(day string, chat bool, usd float64) {
			t, err := time.ParseInLocation(time.DateOnly, day, now.Location())
			if err != nil || t.Day() > d {
				return
			}
			if chat {
				out[t.Day()-1].Chat += usd
			} else {
				out[t.Day()-1].All += usd
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read the month's spend of %q: %w", key, err)
	}
	return out, nil
}

// monthDays calls f with each spend record of now's month that counts for
// key: its day (2006-01-02), whether it is key's own (else all chats'),
// and its dollars. Spending and MonthSpend read the same records.
func monthDays(tx *txn, key string, now time.Time, f func(day string, chat bool, usd float64)) error {
	b, err := tx.bucket(bucketState)
	if err != nil {
		return err
	}
	month := []byte(spendPrefix + now.Format("2006-01-"))
	c := b.Cursor()
	for k, _ := c.Seek(month); k != nil && bytes.HasPrefix(k, month); k, _ = c.Next() {
		day, chat, _ := strings.Cut(string(k[len(spendPrefix):]), ":")
		if chat != "" && chat != key {
			continue
		}
		usd, err := getDollars(b, k)
		if err != nil {
			return err
		}
		f(day, chat != "", usd)
	}
	return nil
}
