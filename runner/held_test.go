package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/untether/untether/engine"
)

// A holder that cannot start leaves Claude running all the same, only not
// through a restart; the engine then hands out a Conn that is no
// engine.Held, so the bot records nothing to re-attach to.
func TestHeldFallsBackWithoutAHolder(t *testing.T) {
	opts := fakeOpts(t, "echo")
	opts.Hold = &Hold{Self: filepath.Join(t.TempDir(), "no-such-untether"), Root: t.TempDir()}
	e := &Engine{Base: opts}
	conn, err := e.Start(context.Background(), engine.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Close(context.Background())
		for range conn.Events() {
		}
	})
	if _, held := conn.(engine.Held); held {
		t.Fatal("a session without a holder is an engine.Held")
	}
	if err := conn.Send(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	for ev := range conn.Events() {
		if tc, ok := ev.(engine.TurnCompleted); ok {
			if tc.Result != "echo: hi" {
				t.Errorf("result %q", tc.Result)
			}
			return
		}
	}
	t.Fatal("no result")
}
