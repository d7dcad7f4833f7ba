package contain

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A panic while handling one update costs that update: Update returns,
// the log names the update, not what it said, and the next one is handled.
func TestContainedPanicSkipsTheUpdate(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	redact := func(s string) string { return strings.ReplaceAll(s, "s3cret", "[redacted]") }
	handled := []int64{}
	for _, id := range []int64{41, 42, 43} {
		Update(log, redact, id, func() {
			if id == 42 {
				var text []string
				_ = text[len("s3cret")] // index out of range, as a bug would
				panic("never reached")
			}
			handled = append(handled, id)
		})
	}
	Update(log, redact, 44, func() { panic("token s3cret in a panic") })
	if len(handled) != 2 || handled[0] != 41 || handled[1] != 43 {
		t.Errorf("handled = %v, want 41 and 43", handled)
	}
	out := logs.String()
	for _, want := range []string{"update_id=42", "index out of range", "update_id=44", "[redacted]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("the log holds the secret:\n%s", out)
	}
}
