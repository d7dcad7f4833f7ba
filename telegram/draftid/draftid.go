// Package draftid hands out the draft_id of each turn's streamed drafts
// (sendMessageDraft, Bot API 9.5+). A stop pressed on a draft
// (stopped_message_generation, Bot API 10.3) names only the chat and that
// id, so the id must name exactly one turn of the chat: a stale stop of an
// earlier turn must never match a later one.
package draftid

import (
	"sync"
	"time"
)

// IDs hands out draft ids. Safe for concurrent use.
type IDs struct {
	mu   sync.Mutex
	last map[int64]int64 // chat id → the largest message id used as a draft id
	next int64           // the last id handed out that is no message's
}

// Message ids are 32-bit in Telegram: ids from next are above any of them,
// and below 2^53, so that every client reads them exactly.
const (
	floor = int64(1) << 32
	span  = int64(1) << 52
)

// New starts the ids that are no message's at a point taken from now, so a
// bot started later does not hand out the ids of an earlier one (a stop
// pressed while the bot was down arrives after its restart).
func New(now time.Time) *IDs {
	return &IDs{last: map[int64]int64{}, next: floor + now.UnixMicro()%span}
}

// For is the draft id of a turn in chatID answering message msgID (0: a
// run no one typed whose first message could not be sent). The first turn
// of a message gets the message's id (a later message has a larger one);
// every other turn — a run without a message, the same message run again by
// Run anyway or /retry — gets an id no message has.
func (d *IDs) For(chatID int64, msgID int) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if id := int64(msgID); id > d.last[chatID] {
		d.last[chatID] = id
		return id
	}
	d.next++
	return d.next
}
