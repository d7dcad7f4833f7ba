package prefs

import (
	"errors"
	"fmt"
	"time"
)

// Delivery is a webhook delivery (package triggers) whose run is queued at
// most once: its ID is remembered until Until, and the same ID again before
// then queues nothing.
type Delivery struct {
	ID    string    // the caller's: which trigger, and which request
	At    time.Time // when it arrived; what is remembered until before then is forgotten
	Until time.Time
}

// Enqueued is what EnqueueDelivery did.
type Enqueued int

const (
	// Queued: the run is queued and the delivery remembered.
	Queued Enqueued = iota + 1
	// QueueFull: the queue holds max runs of the kind; nothing was queued
	// and the delivery is not remembered, so its sender may send it again.
	QueueFull
	// SeenBefore: the delivery is remembered from before; nothing was queued.
	SeenBefore
)

func (e Enqueued) String() string {
	switch e {
	case Queued:
		return "queued"
	case QueueFull:
		return "queue full"
	case SeenBefore:
		return "seen before"
	}
	return fmt.Sprintf("Enqueued(%d)", int(e))
}

// EnqueueDelivery queues p, a run of delivery d, under key: in one
// transaction it refuses a delivery it remembers, refuses a run when key's
// queue already holds max prompts of p's origin kind (a flood of triggers
// must not pile up runs), queues p, and remembers d. So a delivery is remembered exactly when its run is queued,
// and a crash leaves both or neither. Deliveries whose time is over by
// d.At are dropped on the way (the bucket holds a day's deliveries at
// most, which the triggers' rate bounds).
func (s *Store) EnqueueDelivery(key string, p Prompt, max int, d Delivery) (seq uint64, got Enqueued, err error) {
	if p.Origin == nil {
		return 0, 0, errors.New("enqueue delivery: a prompt without origin")
	}
	if d.ID == "" {
		return 0, 0, errors.New("enqueue delivery: an empty delivery id")
	}
	err = s.update(func(tx *txn) error {
		b, err := tx.bucket(bucketDeliveries)
		if err != nil {
			return err
		}
		var expired [][]byte
		err = b.ForEach(func(k, v []byte) error {
			until, err := readU64(v)
			if err != nil {
				return fmt.Errorf("delivery %q: %w", k, err)
			}
			if int64(until) <= d.At.UnixNano() {
				expired = append(expired, k)
			} else if string(k) == d.ID {
				got = SeenBefore
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range expired {
			if err := b.Delete(k); err != nil {
				return fmt.Errorf("forget delivery %q: %w", k, err)
			}
		}
		if got == SeenBefore {
			return nil
		}
		var ok bool
		if seq, ok, err = tx.enqueueBounded(key, p, max); err != nil || !ok {
			got = QueueFull
			return err
		}
		got = Queued
		if err := b.Put([]byte(d.ID), u64(uint64(d.Until.UnixNano()))); err != nil {
			return fmt.Errorf("remember delivery %q: %w", d.ID, err)
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return seq, got, nil
}
