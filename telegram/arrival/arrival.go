// Package arrival remembers, per chat, when a message's arrival was shown
// ("typing…" as it is recorded), so that the turn's own typing counts from
// it instead of sending a second one within Telegram's 5 s of showing.
package arrival

import (
	"sync"
	"time"
)

// Stamps are the arrival moments by key, each kept until taken.
type Stamps[K comparable] struct {
	mu sync.Mutex
	at map[K]time.Time
}

// Mark records that an arrival was shown in k now.
func (s *Stamps[K]) Mark(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[K]time.Time{}
	}
	s.at[k] = time.Now()
}

// Take is when k's last arrival was shown (zero: none) and forgets it.
func (s *Stamps[K]) Take(k K) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.at[k]
	delete(s.at, k)
	return t
}
