package approvals

import (
	"context"
	"encoding/json"
	"testing"
)

// With a seed, a request asked again (a restart of the bot) gets the
// tokens it had, which another request or seed never gets.
func TestSeededTokensRepeat(t *testing.T) {
	tokens := func(seed []byte, session, request string) []string {
		b := New(Config{TokenSeed: seed})
		sub, err := b.Submit(context.Background(), Request{RequestID: request, SessionKey: session, ChatID: 1, ToolName: "Bash",
			Input: json.RawMessage(`{"command":"touch x"}`)}, &fakeResponder{})
		if err != nil || sub.Prompt == nil {
			t.Fatalf("submit: %+v %v", sub, err)
		}
		var out []string
		for _, a := range sub.Prompt.Actions {
			out = append(out, a.Token)
		}
		return out
	}
	seed := []byte("0123456789abcdef0123456789abcdef")
	first, again := tokens(seed, "1", "req-1"), tokens(seed, "1", "req-1")
	if len(first) < 2 || len(first[0]) != 16 {
		t.Fatalf("tokens %q", first)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Errorf("token %d: %q then %q", i, first[i], again[i])
		}
	}
	for _, other := range [][]string{tokens(seed, "1", "req-2"), tokens(seed, "2", "req-1"), tokens([]byte("another seed of 32 bytes ......."), "1", "req-1"), tokens(nil, "1", "req-1")} {
		for i := range other {
			if other[i] == first[i] {
				t.Errorf("token %d repeats across requests or seeds: %q", i, other[i])
			}
		}
	}
}
