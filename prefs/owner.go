package prefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
)

// The owner note is a small file next to the database, written once the lock is held and
// removed on Close. It exists only to make "locked" errors actionable; the lock itself is
// bbolt's flock. A note left behind by a crash is harmless: it is overwritten by the next owner
// and only read when the lock is actually held by someone.

type owner struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
}

func ownerPath(dbPath string) string { return dbPath + ".owner" }

func writeOwner(dbPath string, now time.Time) error {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown host"
	}
	data, err := json.Marshal(owner{PID: os.Getpid(), Host: host, Started: now})
	if err != nil {
		return fmt.Errorf("encode owner note: %w", err)
	}
	// Written aside and renamed so that a reader never sees half a note.
	tmp := ownerPath(dbPath) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("write owner note: %w", err)
	}
	if err := os.Rename(tmp, ownerPath(dbPath)); err != nil {
		return errors.Join(fmt.Errorf("write owner note: %w", err), os.Remove(tmp))
	}
	return nil
}

func removeOwner(dbPath string) error {
	if err := os.Remove(ownerPath(dbPath)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove owner note: %w", err)
	}
	return nil
}

// readOwner returns the note of the current holder, if there is a readable one.
func readOwner(dbPath string) (owner, bool) {
	data, err := os.ReadFile(ownerPath(dbPath))
	if err != nil {
		return owner{}, false
	}
	var o owner
	if err := json.Unmarshal(data, &o); err != nil || o.PID == 0 {
		return owner{}, false
	}
	return o, true
}
