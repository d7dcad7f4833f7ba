package runner

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/untether/untether/engine"
)

// A Bash call streams its input in pieces (input_json_delta, as the pinned
// CLI forwards them: see testdata/e_interrupt_stream.io.jsonl): each piece
// that changes the command gives a partial ActionStarted with the command
// as written so far; the whole call still comes with the assistant line.
func TestDecodeStreamedCommand(t *testing.T) {
	dec := newDecoder("/w")
	dec.redact = func(s string) string { return s }
	ev := func(e string) []byte {
		return []byte(fmt.Sprintf(`{"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":%s}`, e))
	}
	lines := [][]byte{
		ev(`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"tu1","name":"Bash","input":{}}}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"comm"}}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"and\": \"go te"}}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"st ./runner/... \\u00e9"}}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\", \"description\": \"Run"}}`),
		ev(`{"type":"content_block_stop","index":1}`),
		ev(`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"x"}}`),
	}
	var titles []string
	for _, l := range lines {
		d, err := dec.decode(l)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range d.events {
			a, ok := e.(engine.ActionStarted)
			if !ok || !a.Partial || a.ToolUseID != "tu1" || a.Kind != "command" {
				t.Fatalf("event %#v", e)
			}
			titles = append(titles, a.Title)
		}
	}
	want := []string{"go te", "go test ./runner/... é"}
	if fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
}

func TestCloseJSON(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{``, ``, false},
		{`{`, `{}`, true},
		{`{"comm`, ``, false},
		{`{"command"`, ``, false},
		{`{"command":`, `{"command":null}`, true},
		{`{"command": "ls -la`, `{"command": "ls -la"}`, true},
		{`{"command": "echo \`, `{"command": "echo "}`, true},
		{`{"command": "echo \u00`, `{"command": "echo "}`, true},
		{`{"a": [1, 2,`, `{"a": [1, 2]}`, true},
		{`{"a": "x", "b": {"c": "y`, `{"a": "x", "b": {"c": "y"}}`, true},
		{`{"a": tr`, ``, false},
	} {
		got, ok := closeJSON(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("closeJSON(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && !json.Valid([]byte(got)) {
			t.Errorf("closeJSON(%q) = %q: not JSON", c.in, got)
		}
	}
}
