package prefs

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors; errors returned by Open match them with errors.Is.
var (
	// ErrLocked: another process (or another Store in this process) holds the file.
	ErrLocked = errors.New("state file is locked")
	// ErrCorrupt: the file is not a readable database of ours; it was left untouched.
	ErrCorrupt = errors.New("state file is unreadable or corrupt")
	// ErrNewerSchema: the file was written by a newer untether; it was left untouched.
	ErrNewerSchema = errors.New("state file has a newer schema")
)

// errClosed: the Store was closed. Only the package's tests tell it apart from other failures.
var errClosed = errors.New("state store is closed")

// fileError carries a full, user-facing sentence while still matching a sentinel (and the
// underlying cause, if any) with errors.Is.
type fileError struct {
	kind  error
	cause error
	msg   string
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func corruptError(path string, cause error) error {
	return &fileError{kind: ErrCorrupt, cause: cause, msg: fmt.Sprintf(
		"state file %s is unreadable or corrupt (%v); it was not modified: move it aside to start fresh, or restore a backup",
		path, cause)}
}

func newerSchemaError(path string, v uint64) error {
	return &fileError{kind: ErrNewerSchema, msg: fmt.Sprintf(
		"state file %s has schema version %d but this untether knows up to %d; it was not modified: upgrade untether or use another [state] path",
		path, v, schemaVersion)}
}

func lockedError(path string, waited time.Duration) error {
	if o, ok := readOwner(path); ok {
		return &fileError{kind: ErrLocked, msg: fmt.Sprintf(
			"state file %s is locked by another untether (pid %d on %s, started %s); stop it or use another [state] path",
			path, o.PID, o.Host, o.Started.Format(time.RFC3339))}
	}
	held := "held by another process"
	if waited >= time.Millisecond {
		held = fmt.Sprintf("still held after %s", waited.Round(time.Millisecond))
	}
	return &fileError{kind: ErrLocked, msg: fmt.Sprintf(
		"state file %s is locked by another process (lock %s); stop it or use another [state] path",
		path, held)}
}
