package childenv

import (
	"slices"
	"testing"
)

// Secrets leave by name (in Base and Extra) and by value under any name;
// Drop removes the engine's own; the order is Base's, then Extra's.
func TestBuild(t *testing.T) {
	e := Env{
		Base:        []string{"PATH=/bin", "BOT_TOKEN=1:x", "COPY=xK9-secret-value-77", "MARK=1", "HOME=/h"},
		Drop:        func(k string) bool { return k == "MARK" },
		Extra:       []string{"EXTRA=1", "BOT_TOKEN=again"},
		Strip:       []string{"BOT_TOKEN"},
		StripValues: []string{"xK9-secret-value-77"},
	}
	want := []string{"PATH=/bin", "HOME=/h", "EXTRA=1"}
	if got := e.Build(); !slices.Equal(got, want) {
		t.Errorf("env = %q, want %q", got, want)
	}
}
