package prefs

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Daily spend lives in the state bucket under "spend:YYYY-MM-DD" (the
// bot's local day, all chats), for [claude] daily_budget_usd, and under
// "spend:YYYY-MM-DD:<session key>" for each chat, for /usage. A chat's keys
// sort right after its day's, so old days go together.
const spendPrefix = "spend:"

// spendDays is how many days of spend are kept: a month's always are.
const spendDays = 31

func spendKey(day time.Time) []byte { return []byte(spendPrefix + day.Format(time.DateOnly)) }

func chatSpendKey(key string, day time.Time) []byte { return append(spendKey(day), ":"+key...) }

// RecordTurnCost turns what the engine said session sessionID has cost so
// far at the end of a turn (engine.TurnCompleted.SessionCostUSD; Claude
// Code's result.total_cost_usd, which keeps growing across turns, idle
// closes and --resume) into the turn's cost, and adds that cost to key's total and to the spend of now's
// day. All of it is one transaction, so two chats finishing at once, or a
// crash half-way, never count a turn twice or lose one.
//
// The cost is the increase over the total last stored for sessionID; a
// session seen for the first time starts at 0. The cost is never negative:
//   - total <= 0 (or not a number) is no figure at all (the CLI zeroes the
//     results of crashes and start-up errors): the cost is 0 and the stored
//     total stays, so the next real figure is measured against it;
//   - a total below the stored one means the CLI's counter started again
//     (a /clear, or a transcript without a saved total): the spend since the
//     restart is the total itself, which becomes the new baseline.
//
// Both cases are logged.
func (s *Store) RecordTurnCost(key, sessionID string, total float64, now time.Time) (turnCost float64, err error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	if sessionID == "" {
		return 0, fmt.Errorf("record turn cost for %q: empty session id", key)
	}
	if math.IsNaN(total) || math.IsInf(total, 0) || total <= 0 {
		s.opts.log.Warn("the engine reported no usable session total; the turn counts as free",
			"session_key", key, "session_id", sessionID, "total_usd", fmt.Sprint(total))
		return 0, nil
	}
	var before float64
	err = s.update(func(tx *txn) error {
		rec, _, err := tx.session(key)
		if err != nil {
			return err
		}
		before = rec.Totals[sessionID]
		turnCost = total - before
		if total < before {
			turnCost = total
		}
		rec.keepTotal(sessionID, total)
		if err := tx.putSession(key, rec); err != nil {
			return err
		}
		if turnCost == 0 {
			return nil
		}
		costs, err := tx.bucket(bucketCosts)
		if err != nil {
			return err
		}
		if _, err := addDollars(costs, []byte(key), turnCost); err != nil {
			return err
		}
		return tx.addSpend(key, now, turnCost)
	})
	if err != nil {
		return 0, fmt.Errorf("record turn cost for %q: %w", key, err)
	}
	if total < before {
		s.opts.log.Warn("the engine's session total went down; counting it as a new start",
			"session_key", key, "session_id", sessionID, "total_usd", total, "stored_usd", before)
	}
	return turnCost, nil
}

// keepTotal stores id's total and forgets the totals of sessions the record
// no longer holds (beyond maxHistory): those can no longer be resumed.
func (rec *SessionRecord) keepTotal(id string, total float64) {
	if rec.Totals == nil {
		rec.Totals = map[string]float64{}
	}
	rec.Totals[id] = total
	for k := range rec.Totals {
		held := k == id || k == rec.SessionID || slices.ContainsFunc(rec.History, func(p PastSession) bool { return p.ID == k })
		if !held {
			delete(rec.Totals, k)
		}
	}
}

// addSpend adds usd to the total of day's date and to key's on that date.
// Days older than a month are dropped.
func (t *txn) addSpend(key string, day time.Time, usd float64) error {
	b, err := t.bucket(bucketState)
	if err != nil {
		return err
	}
	if _, err := addDollars(b, spendKey(day), usd); err != nil {
		return err
	}
	if _, err := addDollars(b, chatSpendKey(key, day), usd); err != nil {
		return err
	}
	return dropOldSpend(b, spendKey(day.AddDate(0, 0, -spendDays)))
}

func dropOldSpend(b *bolt.Bucket, oldest []byte) error {
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
}

// Spend returns the total recorded for day's date (0 if none).
func (s *Store) Spend(day time.Time) (total float64, err error) {
	err = s.view(func(tx *txn) error {
		b, err := tx.bucket(bucketState)
		if err != nil {
			return err
		}
		total, err = getDollars(b, spendKey(day))
		return err
	})
	return total, err
}

// Spending is what turns cost on now's day and in its month (the bot's
// local calendar): in one chat and in all chats.
type Spending struct {
	ChatToday, ChatMonth float64
	AllToday, AllMonth   float64
}

// Spending sums the days of now's month for key and for all chats. A
// chat's days are counted since the bot started keeping them per chat.
func (s *Store) Spending(key string, now time.Time) (Spending, error) {
	var sp Spending
	if err := checkKey(key); err != nil {
		return sp, err
	}
	today := string(spendKey(now))
	err := s.view(func(tx *txn) error {
		return monthDays(tx, key, now, func(day string, chat bool, usd float64) {
			sum, daySum := &sp.AllMonth, &sp.AllToday
			if chat {
				sum, daySum = &sp.ChatMonth, &sp.ChatToday
			}
			*sum += usd
			if spendPrefix+day == today {
				*daySum += usd
			}
		})
	})
	if err != nil {
		return Spending{}, fmt.Errorf("read the spending of %q: %w", key, err)
	}
	return sp, nil
}
