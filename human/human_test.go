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
