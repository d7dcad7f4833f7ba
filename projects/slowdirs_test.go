package projects

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// A time-out makes a directory skipped for For, then it is tried again;
// other failures and other directories are not skipped.
func TestSlowDirs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := SlowDirs{For: time.Minute}
		timeout := &GitError{Args: []string{"add"}, Err: context.DeadlineExceeded}
		if s.Note("/a", &GitError{Err: errors.New("exit 128")}) || s.Note("/a", context.DeadlineExceeded) || s.Skip("/a") {
			t.Fatal("only a git command that ran out of time counts")
		}
		if !s.Note("/a", timeout) || !s.Skip("/a") || s.Skip("/b") {
			t.Fatal("/a timed out: it alone is skipped")
		}
		time.Sleep(time.Minute - time.Nanosecond)
		if !s.Skip("/a") {
			t.Fatal("skipped for the whole minute")
		}
		time.Sleep(time.Nanosecond)
		if s.Skip("/a") {
			t.Fatal("tried again after a minute")
		}
	})
}
