package codextest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Usage is what every fake response reports: 100 input tokens (10 of them
// cached) and 20 output tokens.
var Usage = map[string]any{
	"input_tokens":          100,
	"input_tokens_details":  map[string]any{"cached_tokens": 10},
	"output_tokens":         20,
	"output_tokens_details": map[string]any{"reasoning_tokens": 0},
	"total_tokens":          120,
}

// events are the stream of one response, as Codex 0.171.0 reads it
// (measured, docs/protocol-codex.md): response.created, the output item
// added, text deltas, the item done, and response.completed with usage.
// The n-th response's ids end in n, so call ids never repeat in a thread.
func events(n int, r Reply) []map[string]any {
	rid := fmt.Sprintf("resp_%d", n)
	evs := []map[string]any{{"type": "response.created", "response": map[string]any{"id": rid}}}
	if r.Command != "" || r.Call != nil {
		name, args := "exec_command", ""
		if r.Call != nil {
			name, args = r.Call.Name, r.Call.Arguments
		} else {
			b, _ := json.Marshal(map[string]string{"cmd": r.Command})
			args = string(b)
		}
		call := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": name, "arguments": args}
		evs = append(evs,
			map[string]any{"type": "response.output_item.added", "output_index": 0, "item": call},
			map[string]any{"type": "response.output_item.done", "output_index": 0, "item": call})
	} else {
		id := fmt.Sprintf("msg_%d", n)
		half := len(r.Text) / 2
		evs = append(evs,
			map[string]any{"type": "response.output_item.added", "output_index": 0,
				"item": map[string]any{"type": "message", "id": id, "role": "assistant", "content": []any{}}},
			delta(id, r.Text[:half]), delta(id, r.Text[half:]),
			map[string]any{"type": "response.output_item.done", "output_index": 0,
				"item": map[string]any{"type": "message", "id": id, "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": r.Text}}}})
	}
	return append(evs, map[string]any{"type": "response.completed", "response": map[string]any{"id": rid, "usage": Usage}})
}

// pauseAt is the event of a text reply before which Reply.Pause is
// waited: the second delta.
const pauseAt = 3

func delta(id, text string) map[string]any {
	return map[string]any{"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": text}
}

func writeEvent(w http.ResponseWriter, ev map[string]any) {
	data, _ := json.Marshal(ev)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
