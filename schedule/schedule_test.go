package schedule

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

var berlin = mustZone("Europe/Berlin")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// Thursday 26 November 2026, 10:00 in Berlin.
var now = time.Date(2026, 11, 26, 10, 0, 0, 0, berlin)

func TestParseAt(t *testing.T) {
	cases := []struct {
		args   string
		want   time.Time
		prompt string
	}{
		{"90s check the build", now.Add(90 * time.Second), "check the build"},
		{"30m look", now.Add(30 * time.Minute), "look"},
		{"2h look", now.Add(2 * time.Hour), "look"},
		{"1d look", now.Add(24 * time.Hour), "look"},
		{"14:30 look", time.Date(2026, 11, 26, 14, 30, 0, 0, berlin), "look"},
		{"9:00 look", time.Date(2026, 11, 27, 9, 0, 0, 0, berlin), "look"}, // passed today: tomorrow
		{"tomorrow 9:00 look\n  twice", time.Date(2026, 11, 27, 9, 0, 0, 0, berlin), "look\n  twice"},
		{"today 23:59 late one", time.Date(2026, 11, 26, 23, 59, 0, 0, berlin), "late one"},
		{"2026-12-01 08:00 deps", time.Date(2026, 12, 1, 8, 0, 0, 0, berlin), "deps"},
	}
	for _, c := range cases {
		got, prompt, err := ParseAt(c.args, now, berlin)
		if err != nil || !got.Equal(c.want) || prompt != c.prompt {
			t.Errorf("ParseAt(%q) = %v, %q, %v; want %v, %q", c.args, got, prompt, err, c.want, c.prompt)
		}
	}
}

func TestParseAtErrors(t *testing.T) {
	cases := map[string]ErrKind{
		"":                        ErrNoWhen,
		"soon look":               ErrBadWhen,
		"25:00 look":              ErrBadWhen,
		"tomorrow look":           ErrBadWhen,
		"2h":                      ErrNoPrompt,
		"tomorrow 9:00":           ErrNoPrompt,
		"today 9:00 look":         ErrPast,
		"2025-12-01 08:00 look":   ErrPast,
		"-5m look":                ErrBadWhen,
		"0s look":                 ErrBadWhen,
		"2026-13-01 08:00 look":   ErrBadWhen,
		"2026-12-01 8:0 look":     ErrBadWhen,
		"2026-12-01T08:00 deps x": ErrBadWhen,
	}
	for args, want := range cases {
		_, _, err := ParseAt(args, now, berlin)
		var e *Error
		if !errors.As(err, &e) || e.Kind != want {
			t.Errorf("ParseAt(%q) error = %v, want kind %d", args, err, want)
		}
	}
}

func TestParseEvery(t *testing.T) {
	cases := []struct {
		args   string
		want   Rule
		prompt string
	}{
		{"6h summarise", Rule{Every: 6 * time.Hour}, "summarise"},
		{"1d deps", Rule{Every: 24 * time.Hour}, "deps"},
		{`"0 9 * * 1-5" CI summary`, Rule{Cron: "0 9 * * 1-5"}, "CI summary"},
		{`{0  9 * * 1-5} CI summary`, Rule{Cron: "0 9 * * 1-5"}, "CI summary"},
		{"“0 9 * * 1-5” CI", Rule{Cron: "0 9 * * 1-5"}, "CI"}, // Telegram's smart quotes
		{`"*/15 * * * *" poll`, Rule{Cron: "*/15 * * * *"}, "poll"},
	}
	for _, c := range cases {
		got, prompt, err := ParseEvery(c.args)
		if err != nil || got != c.want || prompt != c.prompt {
			t.Errorf("ParseEvery(%q) = %+v, %q, %v; want %+v, %q", c.args, got, prompt, err, c.want, c.prompt)
		}
	}
}

func TestParseEveryErrors(t *testing.T) {
	cases := map[string]ErrKind{
		"":                     ErrBadSpec,
		"often x":              ErrBadSpec,
		"30s x":                ErrTooOften,
		"6h":                   ErrNoPrompt,
		`"0 9 * *" x`:          ErrBadSpec, // four fields
		`"0 0 9 * * 1-5" x`:    ErrBadSpec, // six fields: no seconds
		`"@daily" x`:           ErrBadSpec,
		`"TZ=UTC 0 9 * * *" x`: ErrBadSpec,
		`"0 9 * * 1-5 x`:       ErrBadSpec, // not closed
		`"0 9 30 2 *" x`:       ErrNever,
		`"0 9 * * 1-5"`:        ErrNoPrompt,
	}
	for args, want := range cases {
		_, _, err := ParseEvery(args)
		var e *Error
		if !errors.As(err, &e) || e.Kind != want {
			t.Errorf("ParseEvery(%q) error = %v, want kind %d", args, err, want)
		}
	}
}

func TestCronInZone(t *testing.T) {
	r := Rule{Cron: "0 9 * * 1-5"}
	// Thursday 10:00 → Friday 09:00 Berlin, then Monday (the weekend skipped).
	first := r.First(now, berlin)
	if want := time.Date(2026, 11, 27, 9, 0, 0, 0, berlin); !first.Equal(want) {
		t.Fatalf("First = %v, want %v", first, want)
	}
	if next, want := r.After(first, first, berlin), time.Date(2026, 11, 30, 9, 0, 0, 0, berlin); !next.Equal(want) {
		t.Fatalf("After = %v, want %v", next, want)
	}
	// Across the change to summer time the run stays at 09:00 local.
	spring := time.Date(2027, 3, 26, 9, 0, 0, 0, berlin) // Friday before the change (28 March)
	if next := r.After(spring, spring, berlin); next.Hour() != 9 || next.Weekday() != time.Monday || next.In(time.UTC).Hour() != 7 {
		t.Fatalf("after the clocks change: %v", next)
	}
}

func TestAfterCatchesUpOnce(t *testing.T) {
	due := time.Date(2026, 11, 20, 9, 0, 0, 0, berlin)
	down := time.Date(2026, 11, 26, 10, 0, 0, 0, berlin) // a week later
	every := Rule{Every: 6 * time.Hour}
	next := every.After(due, down, berlin)
	if want := time.Date(2026, 11, 26, 15, 0, 0, 0, berlin); !next.Equal(want) {
		t.Errorf("every 6h after a week down: next %v, want %v (phase kept, after now)", next, want)
	}
	cron := Rule{Cron: "0 9 * * *"}
	if next, want := cron.After(due, down, berlin), time.Date(2026, 11, 27, 9, 0, 0, 0, berlin); !next.Equal(want) {
		t.Errorf("daily after a week down: next %v, want %v", next, want)
	}
	if !Late(due, down) || Late(due, due.Add(LateAfter)) {
		t.Error("Late disagrees with LateAfter")
	}
	if at := (Rule{At: due}); !at.After(due, down, berlin).IsZero() {
		t.Error("a one-off rule has no next run")
	}
}

func TestZone(t *testing.T) {
	if got := Zone(now, berlin); got != "Europe/Berlin" {
		t.Errorf("Zone(Berlin) = %q", got)
	}
	local := time.FixedZone("CET", 3600)
	if got := Zone(now, local); got != "CET" {
		t.Errorf("Zone(fixed) = %q", got)
	}
}

// The loop wakes at each due time, on the bubble's clock, and a poke
// makes it see a schedule added meanwhile.
func TestLoopFiresOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		dues := []time.Time{start.Add(90 * time.Minute)}
		var fired []time.Duration
		next := func() (time.Time, bool) {
			mu.Lock()
			defer mu.Unlock()
			if len(dues) == 0 {
				return time.Time{}, false
			}
			return dues[0], true
		}
		fire := func(now time.Time) {
			mu.Lock()
			defer mu.Unlock()
			fired = append(fired, now.Sub(start))
			dues = dues[1:]
		}
		l := NewLoop()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { l.Run(ctx, next, fire); close(done) }()

		time.Sleep(30 * time.Minute)
		mu.Lock()
		dues = append([]time.Time{start.Add(45 * time.Minute)}, dues...) // sooner than the first
		mu.Unlock()
		l.Poke()
		time.Sleep(3 * time.Hour)
		synctest.Wait()
		mu.Lock()
		got := fired
		mu.Unlock()
		if len(got) != 2 || got[0] != 45*time.Minute || got[1] != 90*time.Minute {
			t.Errorf("fired at %v, want [45m 1h30m]", got)
		}
		cancel()
		<-done
	})
}
