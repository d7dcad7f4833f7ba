package projects

import (
	"context"
	"errors"
	"sync"
	"time"
)

// SlowDirs remembers directories where git ran out of time, so that
// automatic work there (the snapshots of every turn) is skipped for a
// while instead of paying the whole time limit at each turn's start and
// end. Git opens a project's .gitignore and .gitattributes itself, and
// waits on one that is a FIFO (an archive can plant one) until its time
// limit kills it: nothing the bot can switch off. Safe for concurrent use;
// the zero value is ready.
type SlowDirs struct {
	// For is how long a directory is skipped after a time-out;
	// DefaultSlowFor when zero.
	For   time.Duration
	mu    sync.Mutex
	until map[string]time.Time
}

// DefaultSlowFor is how long SlowDirs skips a directory.
const DefaultSlowFor = 15 * time.Minute

// maxSlowDirs bounds the directories remembered.
const maxSlowDirs = 1024

// Skip reports whether automatic git work in dir should be skipped now.
func (s *SlowDirs) Skip(dir string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.until[dir]
	if ok && !time.Now().Before(until) {
		delete(s.until, dir)
		return false
	}
	return ok
}

// Note records err, the outcome of git work in dir: a time-out makes
// dir skipped for s.For; it reports whether it did.
func (s *SlowDirs) Note(dir string, err error) bool {
	if !TimedOut(err) {
		return false
	}
	d := s.For
	if d <= 0 {
		d = DefaultSlowFor
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.until == nil || len(s.until) >= maxSlowDirs {
		s.until = map[string]time.Time{}
	}
	s.until[dir] = time.Now().Add(d)
	return true
}

// TimedOut reports whether err is a git command that ran out of time.
func TimedOut(err error) bool {
	var ge *GitError
	return errors.As(err, &ge) && errors.Is(err, context.DeadlineExceeded)
}
