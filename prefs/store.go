// Package prefs is the bot's whole durable state: what the bot remembers across a restart is in
// this one bbolt file (files users send are saved as files, not here). Despite its name it holds
// far more than preferences:
//
//   - prefs: each session key's own settings (plan mode, model, verbose, working directory);
//   - sessions: each session key's current Claude session id, its /sessions history, resume
//     failures, and the running cost totals Claude Code last reported per session;
//   - costs: each session key's total spend in USD;
//   - daily spend: the spend of each of the last 31 days, for the daily budget;
//   - the update offset and the window of recently handled update ids;
//   - the prompt queue: prompts accepted from Telegram whose turn has not begun;
//   - live messages: progress and approval messages to mark "interrupted" after a restart;
//   - cooldowns: each session key's plan cooldown;
//   - schedules: /at, /every and the config's [[schedules]], each with when it is due next;
//   - deliveries: the trigger deliveries of the last day, so that a replayed one runs nothing;
//   - transcripts: each session key's last turns, as package transcript records them (bounded);
//   - the schema version, migrated forward on Open.
//
// Per-chat data is keyed by the session key the bot forms ("chatid" or "chatid:threadid").
//
// Guarantees. Every Store method is one bbolt transaction, committed (and synced to disk) before
// it returns: a crash leaves either all of a method's writes or none of them. Steps that must not
// be separated are one method: AcceptUpdate (handled, offset and queued prompt), BeginTurn
// (prompts done and progress message live), RecordTurnCost (session total, chat cost and daily
// spend), DonePrompt of several prompts, FireSchedule (the run queued and the schedule moved on),
// EnqueueDelivery (the run queued and the delivery remembered). Reads see one consistent
// snapshot. Methods are safe for concurrent use; writers are serialised. One process at a time
// holds the file (flock), and Open never modifies a file it cannot fully read: a corrupt or newer
// file is reported, not replaced.
package prefs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

const (
	defaultLockTimeout       = time.Second
	defaultHandledWindow     = 1000
	defaultMaxResumeFailures = 2
)

// Option adjusts Open.
type Option func(*options)

// The clock, the handled window and the resume failure limit are fixed for the bot; the
// package's tests set them directly.
type options struct {
	lockTimeout       time.Duration
	now               func() time.Time // timestamps the store records
	handledWindow     int              // how many recently handled update ids are remembered
	maxResumeFailures int              // failed resumes of one session id before it is dropped
	log               *slog.Logger
}

// WithLockTimeout bounds how long Open waits for another holder of the file to let go.
// A value <= 0 means: do not wait at all.
func WithLockTimeout(d time.Duration) Option { return func(o *options) { o.lockTimeout = d } }

// WithLogger sets the logger for the few things worth telling (migrations).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// Store is the open state file. All methods are safe for concurrent use.
type Store struct {
	path string // absolute, so errors and the owner note stay right if the process changes directory
	opts options

	mu     sync.Mutex // guards closed; bbolt itself serializes transactions
	closed bool
	db     *bolt.DB
	// commits counts write transactions that committed: each is a disk
	// sync, the cost the bot must not let strangers spend.
	commits atomic.Uint64
}

// Commits returns how many write transactions have committed since Open.
func (s *Store) Commits() uint64 { return s.commits.Load() }

// Open opens (creating if needed) the state file at path, checks it, and migrates its schema.
// The parent directory is created with mode 0700 and the file with 0600. Errors name the file;
// they match ErrLocked (held by another process, after waiting up to the lock timeout or the
// ctx deadline), ErrCorrupt or ErrNewerSchema (in both cases the file was not modified).
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{
		lockTimeout:       defaultLockTimeout,
		now:               time.Now,
		handledWindow:     defaultHandledWindow,
		maxResumeFailures: defaultMaxResumeFailures,
		log:               slog.Default(),
	}
	for _, f := range opts {
		f(&o)
	}
	if o.handledWindow < 1 {
		return nil, fmt.Errorf("open state file %s: handled window must be >= 1, got %d", path, o.handledWindow)
	}
	if o.maxResumeFailures < 1 {
		return nil, fmt.Errorf("open state file %s: max resume failures must be >= 1, got %d", path, o.maxResumeFailures)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("open state file %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open state file %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open state file %s: create directory: %w", abs, err)
	}

	// An existing, non-empty file is checked read-only first: bbolt never writes in that mode,
	// so a broken file stays byte-identical for the user to inspect or restore.
	info, err := os.Stat(abs)
	switch {
	case err == nil && info.IsDir():
		return nil, fmt.Errorf("open state file %s: is a directory", abs)
	case err == nil && info.Size() > 0:
		if err := validate(ctx, abs, o); err != nil {
			return nil, err
		}
	case err == nil, errors.Is(err, os.ErrNotExist):
	default:
		return nil, fmt.Errorf("open state file %s: %w", abs, err)
	}

	wait := lockWait(ctx, o.lockTimeout)
	db, err := bolt.Open(abs, 0o600, &bolt.Options{Timeout: wait})
	if err != nil {
		return nil, openError(abs, wait, err)
	}
	s := &Store{path: abs, opts: o, db: db}
	if err := s.migrate(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	if err := writeOwner(abs, time.Now()); err != nil {
		return nil, errors.Join(fmt.Errorf("open state file %s: %w", abs, err), db.Close())
	}
	return s, nil
}

// Close releases the file. Calling it again is a no-op. It waits for transactions in flight.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	// The owner note goes first, while the lock is still ours: once the lock is released a new
	// owner may write its own note, which we must not delete.
	errOwner := removeOwner(s.path)
	if err := s.db.Close(); err != nil {
		return errors.Join(errOwner, fmt.Errorf("close state file %s: %w", s.path, err))
	}
	return errOwner
}

// lockWait turns the configured timeout into bbolt's, where 0 would mean "wait forever".
func lockWait(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			d = left
		}
	}
	if d <= 0 {
		return time.Nanosecond // one attempt, no waiting
	}
	return d
}

// openError classifies a bbolt.Open failure into the messages a user can act on.
func openError(path string, waited time.Duration, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return lockedError(path, waited)
	}
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("open state file %s: %w", path, err)
	}
	return corruptError(path, err)
}

// validate opens an existing file read-only and proves it can be read in full, so that the
// read-write open that follows cannot trip over (or "repair") a damaged file.
func validate(ctx context.Context, path string, o options) error {
	wait := lockWait(ctx, o.lockTimeout)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: wait})
	if err != nil {
		return openError(path, wait, err)
	}
	verr := readAll(db, path)
	if cerr := db.Close(); cerr != nil && verr == nil {
		verr = fmt.Errorf("open state file %s: close after check: %w", path, cerr)
	}
	return verr
}
