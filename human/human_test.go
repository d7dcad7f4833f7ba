package human

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		d        time.Duration
		down, up string
	}{
		{0, "0 seconds", "0 seconds"},
		{400 * time.Millisecond, "0 seconds", "1 second"},
		{time.Second, "1 second", "1 second"},
		{29600 * time.Millisecond, "29 seconds", "30 seconds"},
		{30 * time.Second, "30 seconds", "30 seconds"},
		{59*time.Second + time.Millisecond, "59 seconds", "1 minute"},
		{time.Minute, "1 minute", "1 minute"},
		{61 * time.Second, "1 minute", "2 minutes"},
		{90 * time.Second, "1 minute", "2 minutes"},
		{9*time.Minute + time.Second, "9 minutes", "10 minutes"},
		{10 * time.Minute, "10 minutes", "10 minutes"},
		{59*time.Minute + time.Second, "59 minutes", "1 hour"},
		{2 * time.Hour, "2 hours", "2 hours"},
		{47*time.Hour + time.Minute, "47 hours", "2 days"},
		{48 * time.Hour, "2 days", "2 days"},
		{80 * time.Hour, "3 days", "4 days"},
		{-time.Minute, "0 seconds", "0 seconds"},
	} {
		if got := Duration(c.d); got != c.down {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.down)
		}
		if got := DurationUp(c.d); got != c.up {
			t.Errorf("DurationUp(%v) = %q, want %q", c.d, got, c.up)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KB", 12 * 1024: "12 KB",
		1<<20 - 1: "1024 KB", 1 << 20: "1.0 MB", 1536 * 1024: "1.5 MB", 20 << 20: "20.0 MB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Minute:                       "0 min",
		0:                                  "0 min",
		time.Second:                        "1 min",
		45 * time.Minute:                   "45 min",
		59*time.Minute + time.Second:       "1 h",
		2*time.Hour + 10*time.Minute:       "2 h 10 min",
		2*time.Hour + 9*time.Minute + 1:    "2 h 10 min",
		47*time.Hour + 59*time.Minute:      "47 h 59 min",
		48 * time.Hour:                     "2 days",
		3*24*time.Hour + 4*time.Hour + 1e9: "3 days 4 h",
	} {
		if got := Span(d); got != want {
			t.Errorf("Span(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestClock(t *testing.T) {
	zone := time.FixedZone("X", 3600)
	now := time.Date(2026, 11, 24, 11, 50, 0, 0, zone) // a Tuesday
	for at, want := range map[time.Time]string{
		time.Date(2026, 11, 24, 14, 0, 0, 0, zone):     "14:00",
		time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC): "14:00", // said in now's zone
		time.Date(2026, 11, 25, 9, 30, 0, 0, zone):     "tomorrow 09:30",
		time.Date(2026, 11, 28, 8, 0, 0, 0, zone):      "Sat 08:00",
		time.Date(2026, 12, 3, 14, 0, 0, 0, zone):      "3 Dec 14:00",
		time.Date(2026, 11, 23, 23, 0, 0, 0, zone):     "23 Nov 23:00",
	} {
		if got := Clock(at, now); got != want {
			t.Errorf("Clock(%v) = %q, want %q", at, got, want)
		}
	}
}

// Clip keeps the head, ClipTail the tail, both counting characters, not
// bytes, and mark the cut.
func TestClip(t *testing.T) {
	if got := Clip("héllo world", 5); got != "héllo…" {
		t.Errorf("Clip = %q", got)
	}
	if got := ClipTail("error: dépôt", 5); got != "…dépôt" {
		t.Errorf("ClipTail = %q", got)
	}
	if got := Clip("short", 9); got != "short" {
		t.Errorf("Clip of a short text = %q", got)
	}
}

func TestMoneyCountsAndElapsed(t *testing.T) {
	for in, want := range map[float64]string{0: "$0.00", 0.05: "$0.05", 0.0539: "$0.0539", 0.015: "$0.0150", 1: "$1.00", 12.345: "$12.35", -3: "$0.00"} {
		if got := Dollars(in); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int]string{-1: "0", 999: "999", 1000: "1k", 12345: "12.3k", 1_000_000: "1M", 2_500_000: "2.5M"} {
		if got := Count(in); got != want {
			t.Errorf("Count(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{-time.Second: "0s", 8 * time.Second: "8s", 65 * time.Second: "1m 05s", 3720 * time.Second: "1h 02m"} {
		if got := Elapsed(in); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", in, got, want)
		}
	}
}
