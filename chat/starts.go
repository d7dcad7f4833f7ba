package chat

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Starts admits agent starts (new and --resume) on one machine. Booting
// Claude Code costs about half a second of CPU on one core, nearly all of
// it before the agent's first event (docs/performance.md): twenty
// started at once on 2 cores each wait for all the others, and every
// chat gets its first answer after the slowest start. So at most max
// starts are in flight and the rest wait in the order they came: early
// chats are answered while later ones start.
//
// A start is in flight from the moment it is admitted until the agent
// has shown it is up (its first event: Started) or failed, and at most
// MaxStartHold: a process that never speaks does not keep others out.
// Holding the place longer (to the model's request, or until the CPU
// settles) and bounds of 1 or NumCPU+1 were measured and gained nothing.
type Starts struct {
	max int

	mu    sync.Mutex
	busy  int
	queue []chan struct{} // waiting starts, first come first; closed when admitted
}

// MaxStartHold bounds how long one start keeps its place.
const MaxStartHold = 30 * time.Second

// StartNoticeAfter is how long a start waits before the chat is told it
// waits its turn to start: a wait shorter than that costs no message.
const StartNoticeAfter = time.Second

// DefaultMaxStarts is the bound of a machine that set none: its cores
// (as GOMAXPROCS counts them by default: a container's CPU quota too).
// Starting is CPU-bound, and one start per core keeps each about as fast
// as alone. (A host over SSH is given its own cores in
// MachineConfig.MaxStarts; this is the fallback when it cannot tell.)
func DefaultMaxStarts() int { return max(1, runtime.GOMAXPROCS(0)) }

// NewStarts admits at most max starts at once.
func NewStarts(max int) *Starts {
	if max < 1 {
		max = 1
	}
	return &Starts{max: max}
}

// Admit waits until a start may go, in order of arrival. If it has to
// wait at all, onQueued is called at once (the chat can show it is being
// handled before the wait, not after it); if it waits StartNoticeAfter,
// onWait is called once with how many starts are ahead of it (those in
// flight and those waiting before it). Either may be nil. The release it
// returns ends the start's place (once; later calls do nothing); it is
// also ended MaxStartHold after admission. ctx ending gives up the wait.
func (s *Starts) Admit(ctx context.Context, onQueued func(), onWait func(ahead int)) (release func(), err error) {
	s.mu.Lock()
	if s.busy < s.max && len(s.queue) == 0 {
		s.busy++
		s.mu.Unlock()
		return s.held(), nil
	}
	ch := make(chan struct{})
	s.queue = append(s.queue, ch)
	s.mu.Unlock()
	if onQueued != nil {
		onQueued()
	}
	notice := time.NewTimer(StartNoticeAfter)
	defer notice.Stop()
	for {
		select {
		case <-ch:
			return s.held(), nil
		case <-notice.C:
			if onWait != nil {
				onWait(s.ahead(ch))
			}
		case <-ctx.Done():
			s.mu.Lock()
			for i, c := range s.queue {
				if c == ch {
					s.queue = append(s.queue[:i], s.queue[i+1:]...)
					s.mu.Unlock()
					return nil, ctx.Err()
				}
			}
			s.mu.Unlock()
			// Admitted as it gave up: the place goes to the next.
			s.release()
			return nil, ctx.Err()
		}
	}
}

// ahead counts the starts before ch: those in flight, those queued first.
func (s *Starts) ahead(ch chan struct{}) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.busy
	for _, c := range s.queue {
		if c == ch {
			break
		}
		n++
	}
	return n
}

// held is an admitted start's release: once, by its caller or by the
// MaxStartHold timer.
func (s *Starts) held() func() {
	var once sync.Once
	t := time.AfterFunc(MaxStartHold, func() { once.Do(s.release) })
	return func() {
		t.Stop()
		once.Do(s.release)
	}
}

// release hands the place to the first waiting start, or frees it.
func (s *Starts) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		close(s.queue[0])
		s.queue = s.queue[1:]
		return
	}
	s.busy--
}

// InFlight is how many starts are admitted and not yet ended.
func (s *Starts) InFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}
