package prefs

import (
	"bytes"
	"fmt"
	"time"
)

// Daily spend lives in the state bucket under "spend:YYYY-MM-DD" (the
// bot's local day), for [claude] daily_budget_usd.
const spendPrefix = "spend:"

// spendDays is how many days of spend are kept.
const spendDays = 31

func spendKey(day time.Time) []byte { return []byte(spendPrefix + day.Format(time.DateOnly)) }

// AddSpend adds usd (finite, >= 0) to the total of day's date and returns
// the new total. Days older than a month are dropped.
func (s *Store) AddSpend(day time.Time, usd float64) (total float64, err error) {
	err = s.Update(func(tx *Tx) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		if total, err = addDollars(b, spendKey(day), usd); err != nil {
			return err
		}
		oldest := spendKey(day.AddDate(0, 0, -spendDays))
		c := b.Cursor()
		var stale [][]byte
		for k, _ := c.Seek([]byte(spendPrefix)); k != nil && bytes.HasPrefix(k, []byte(spendPrefix)); k, _ = c.Next() {
			if bytes.Compare(k, oldest) < 0 {
				stale = append(stale, append([]byte(nil), k...))
			}
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return fmt.Errorf("drop old spend: %w", err)
			}
		}
		return nil
	})
	return total, err
}

// Spend returns the total recorded for day's date (0 if none).
func (s *Store) Spend(day time.Time) (total float64, err error) {
	err = s.view(func(tx *Tx) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		total, err = getDollars(b, spendKey(day))
		return err
	})
	return total, err
}
