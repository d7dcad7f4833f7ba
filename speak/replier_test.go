package speak_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/speak"
	"github.com/untether/untether/speak/speaktest"
)

// fixed is a Speaker that gives the same audio, or an error, and counts.
type fixed struct {
	mu    sync.Mutex
	audio []byte
	err   error
	calls int
}

func (f *fixed) Speak(context.Context, string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.audio, f.err
}

// A Replier without a frontend: the mode decides (auto speaks only a
// heard prompt's answer, off never, on always), what is said is redacted,
// the audio is delivered with its length, and three failures in a row
// pause auto once until Resume.
func TestReplierFollowsTheMode(t *testing.T) {
	speaktest.NeedEspeak(t)
	audio := speaktest.Say(t, "Hello there.")
	synctest.Test(t, func(t *testing.T) {
		sp := &fixed{audio: audio}
		said := []string{}
		r := speak.NewReplier(sp, 1000, func(s string) string { said = append(said, s); return s }, slog.New(slog.DiscardHandler))
		stop := make(chan struct{})
		defer close(stop)
		var delivered []time.Duration
		var mu sync.Mutex
		note := func(mode string, heard bool) speak.Note {
			return speak.Note{Key: "k", Mode: mode, Heard: heard, Answer: "**Hello** there.",
				Deliver: func(_ context.Context, a []byte, length time.Duration) error {
					mu.Lock()
					delivered = append(delivered, length)
					mu.Unlock()
					return nil
				}, Paused: func() { t.Error("paused without failures") }}
		}
		for _, c := range []struct {
			mode  string
			heard bool
			want  int
		}{{speak.ModeAuto, false, 0}, {speak.ModeOff, true, 0}, {speak.ModeAuto, true, 1}, {speak.ModeOn, false, 2}} {
			r.Follow(stop, note(c.mode, c.heard))
			synctest.Wait()
			mu.Lock()
			if len(delivered) != c.want {
				t.Errorf("mode %s heard %v: %d voice notes in all, want %d", c.mode, c.heard, len(delivered), c.want)
			}
			mu.Unlock()
		}
		if len(delivered) > 0 && delivered[0] <= 0 {
			t.Errorf("delivered without a length: %v", delivered)
		}
		if len(said) == 0 || said[0] != "Hello there." {
			t.Errorf("what was said: %q, want the answer for the ear", said)
		}

		sp.err = errors.New("backend down")
		paused := 0
		failing := note(speak.ModeAuto, true)
		failing.Paused = func() { paused++ }
		for range speak.FailuresMax + 1 {
			r.Follow(stop, failing)
			synctest.Wait()
		}
		if paused != 1 || sp.calls != 2+speak.FailuresMax {
			t.Errorf("paused %d times, backend asked %d times; want 1 pause and no call while paused", paused, sp.calls)
		}
		r.Resume("k")
		r.Follow(stop, failing)
		synctest.Wait()
		if sp.calls != 3+speak.FailuresMax {
			t.Error("after Resume the backend was not asked again")
		}
	})
}
