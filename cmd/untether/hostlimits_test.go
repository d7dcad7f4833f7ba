package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/host"
)

type coresHost struct {
	host.Local
	n   int
	err error
}

func (c coresHost) NumCPU(context.Context) (int, error) { return c.n, c.err }

// A host's starts in flight follow its own cores; one that cannot tell
// (an error, no answer, a host without the question) gets this machine's.
func TestMaxStartsFromTheHostsCores(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	local := chat.DefaultMaxStarts()
	for _, tc := range []struct {
		name string
		h    host.Host
		want int
	}{
		{"cores", coresHost{n: local + 5}, local + 5},
		{"one core", coresHost{n: 1}, 1},
		{"error", coresHost{n: 64, err: errors.New("no answer")}, local},
		{"nonsense", coresHost{n: 0}, local},
		{"no bound", coresHost{n: 1 << 40}, local},
		{"cannot ask", struct{ host.Host }{host.Local{}}, local},
	} {
		if got := maxStarts(ctx, tc.h, log); got != tc.want {
			t.Errorf("%s: maxStarts = %d, want %d", tc.name, got, tc.want)
		}
	}
}
