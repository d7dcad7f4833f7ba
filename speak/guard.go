package speak

import (
	"sync"
	"time"
)

// Failures in a row that turn a chat's automatic voice replies off, and
// for how long.
const (
	FailuresMax = 3
	PauseFor    = time.Hour
)

// Guard counts each chat's speech failures in a row: FailuresMax of them
// pause the chat's automatic voice replies for PauseFor, so a broken
// backend is not asked after every voice note. A success clears the count.
// Only chats with failures are kept.
type Guard struct {
	mu    sync.Mutex
	chats map[string]*failures
}

type failures struct {
	n     int
	until time.Time // auto is paused until then
}

// Paused reports whether key's automatic voice replies are paused now.
func (g *Guard) Paused(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, ok := g.chats[key]
	if !ok || f.until.IsZero() {
		return false
	}
	if time.Now().Before(f.until) {
		return true
	}
	delete(g.chats, key) // the pause is over: a fresh count
	return false
}

// Failed counts a failure for key and reports whether it is the one that
// pauses the chat (true once per pause: the chat is told then).
func (g *Guard) Failed(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.chats == nil {
		g.chats = map[string]*failures{}
	}
	f, ok := g.chats[key]
	if !ok {
		f = &failures{}
		g.chats[key] = f
	}
	if !f.until.IsZero() {
		return false // already paused (an "on" chat still tries)
	}
	f.n++
	if f.n < FailuresMax {
		return false
	}
	f.until = time.Now().Add(PauseFor)
	return true
}

// Succeeded clears key's count (and a pause).
func (g *Guard) Succeeded(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.chats, key)
}
