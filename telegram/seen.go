package telegram

import (
	"sync"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/untether/untether/telegram/outbox"
)

// arrivals shows every message that it arrived: "typing…" the moment it
// is recorded, before any queue or start (a chat action costs no message
// of the chat's window). The turn's own typing then counts from it, so
// the chat gets no second one within Telegram's 5 s of showing.
type arrivals struct {
	mu sync.Mutex
	at map[place]time.Time // when an arrival's typing was queued, until its turn takes it
}

// show queues "typing…" for a message that arrived in pl.
func (a *arrivals) show(b *Bot, pl place) {
	a.mu.Lock()
	if a.at == nil {
		a.at = map[place]time.Time{}
	}
	a.at[pl] = time.Now()
	a.mu.Unlock()
	// High: in a burst every chat's first sign competes for the global 30
	// calls a second with drafts and edits; this one is worth the most.
	b.chatAction(pl, models.ChatActionTyping, outbox.High)
}

// take is when pl's last arrival typing was queued (zero: none) and
// forgets it.
func (a *arrivals) take(pl place) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	t := a.at[pl]
	delete(a.at, pl)
	return t
}
