package claudetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// message is a reply ready to be sent: ids assigned, inputs encoded.
type message struct {
	ID           string
	Model        string
	Parts        []resolvedPart
	StopReason   string
	InputTokens  int
	OutputTokens int
}

type resolvedPart struct {
	Kind  string
	Text  string
	ID    string
	Name  string
	Input json.RawMessage
}

// forever is how long a hanging stream waits: until the client or the API
// goes away, in practice.
const forever = 24 * time.Hour

// fakeSignature stands in for the signature of a thinking block; the CLI
// sends it back unchanged and nothing checks it.
const fakeSignature = "fake-signature"

// sseWriter writes server-sent events and flushes each one, pausing before
// deltas when the reply is slow.
type sseWriter struct {
	w     http.ResponseWriter
	flush func()
	delay time.Duration
	hang  int // see Reply.Hang
	sent  int // delta events sent
	wait  func(ctx context.Context, d time.Duration) error
}

func (s *sseWriter) event(name string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s event: %w", name, err)
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b); err != nil {
		return fmt.Errorf("write %s event: %w", name, err)
	}
	s.flush()
	return nil
}

func (s *sseWriter) delta(ctx context.Context, index int, delta map[string]any) error {
	if s.hang > 0 && s.sent >= s.hang-1 {
		return s.wait(ctx, forever)
	}
	if s.delay > 0 {
		if err := s.wait(ctx, s.delay); err != nil {
			return err
		}
	}
	s.sent++
	return s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index, "delta": delta})
}

// writeStream sends msg the way the Messages API streams: message_start,
// ping, per block start/deltas/stop, message_delta, message_stop.
func (s *sseWriter) writeStream(ctx context.Context, msg message) error {
	start := messageJSON(msg, false)
	if err := s.event("message_start", map[string]any{"type": "message_start", "message": start}); err != nil {
		return err
	}
	if err := s.event("ping", map[string]any{"type": "ping"}); err != nil {
		return err
	}
	for i, p := range msg.Parts {
		if err := s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": emptyBlock(p)}); err != nil {
			return err
		}
		if err := s.blockDeltas(ctx, i, p); err != nil {
			return err
		}
		if err := s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}); err != nil {
			return err
		}
	}
	if err := s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": msg.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": msg.OutputTokens},
	}); err != nil {
		return err
	}
	return s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (s *sseWriter) blockDeltas(ctx context.Context, i int, p resolvedPart) error {
	switch p.Kind {
	case "tool_use":
		for _, piece := range splitN(string(p.Input), 3) {
			if err := s.delta(ctx, i, map[string]any{"type": "input_json_delta", "partial_json": piece}); err != nil {
				return err
			}
		}
	case "thinking":
		for _, piece := range splitWords(p.Text) {
			if err := s.delta(ctx, i, map[string]any{"type": "thinking_delta", "thinking": piece}); err != nil {
				return err
			}
		}
		return s.delta(ctx, i, map[string]any{"type": "signature_delta", "signature": fakeSignature})
	default:
		for _, piece := range splitWords(p.Text) {
			if err := s.delta(ctx, i, map[string]any{"type": "text_delta", "text": piece}); err != nil {
				return err
			}
		}
	}
	return nil
}

// emptyBlock is the content_block of content_block_start: the block before
// any delta arrived.
func emptyBlock(p resolvedPart) map[string]any {
	switch p.Kind {
	case "tool_use":
		return map[string]any{"type": "tool_use", "id": p.ID, "name": p.Name, "input": map[string]any{}}
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": "", "signature": ""}
	default:
		return map[string]any{"type": "text", "text": ""}
	}
}

// messageJSON is the message object: empty content for message_start
// (full=false), or the whole answer for a non-streaming reply.
func messageJSON(msg message, full bool) map[string]any {
	content := []any{}
	var stop any
	outTokens := 1
	if full {
		for _, p := range msg.Parts {
			switch p.Kind {
			case "tool_use":
				content = append(content, map[string]any{"type": "tool_use", "id": p.ID, "name": p.Name, "input": p.Input})
			case "thinking":
				content = append(content, map[string]any{"type": "thinking", "thinking": p.Text, "signature": fakeSignature})
			default:
				content = append(content, map[string]any{"type": "text", "text": p.Text})
			}
		}
		stop = msg.StopReason
		outTokens = msg.OutputTokens
	}
	return map[string]any{
		"id":            msg.ID,
		"type":          "message",
		"role":          "assistant",
		"model":         msg.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                msg.InputTokens,
			"output_tokens":               outTokens,
			"cache_creation_input_tokens": 0,
			"cache_read_input_tokens":     0,
		},
	}
}

// splitWords cuts text after each run of white space, the way a model
// streams tokens; the pieces join back to text.
func splitWords(text string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) || len(out) == 0 {
		out = append(out, text[start:])
	}
	return out
}

// splitN cuts s into at most n pieces of similar size on rune boundaries.
func splitN(s string, n int) []string {
	size := (len(s) + n - 1) / n
	if size == 0 {
		return []string{s}
	}
	var out []string
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}

func estimateTokens(s string) int {
	return len(strings.Fields(s)) + 1
}
