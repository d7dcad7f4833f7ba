package control

import (
	"context"
	"sync"
	"time"
)

// Asides runs side questions (/btw) off the chat's command lane: an
// answer may take as long as the agent's control timeout, and the chat's
// next commands must not wait behind it. Each question is bounded by Wait
// and ends when Ctx does (the bot stops); a conversation asks one at a
// time, so a chat cannot pile up goroutines. Who may ask is checked
// before, as for every command.
type Asides struct {
	Ctx  context.Context
	Wait time.Duration
	WG   *sync.WaitGroup // the bot's: it waits for the questions at stop

	mu   sync.Mutex
	busy map[string]bool
}

// Go runs ask for conversation key on a goroutine of its own, with a
// context bounded by Wait, unless key's previous question is still being
// answered (false). It never waits.
func (s *Asides) Go(key string, ask func(ctx context.Context)) bool {
	if s.Ctx.Err() != nil {
		return true // stopping: the question is dropped with the bot's other work
	}
	s.mu.Lock()
	if s.busy[key] {
		s.mu.Unlock()
		return false
	}
	if s.busy == nil {
		s.busy = map[string]bool{}
	}
	s.busy[key] = true
	s.mu.Unlock()
	s.WG.Add(1)
	go func() {
		defer s.WG.Done()
		defer func() {
			s.mu.Lock()
			delete(s.busy, key)
			s.mu.Unlock()
		}()
		ctx, cancel := context.WithTimeout(s.Ctx, s.Wait)
		defer cancel()
		ask(ctx)
	}()
	return true
}
