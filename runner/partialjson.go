package runner

import (
	"encoding/json"
	"strings"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/toolkinds"
)

// A tool call streams like text (content_block_start with the tool's name
// and id, then input_json_delta pieces of its input, then
// content_block_stop), so the command Claude is writing can show before the
// call is complete. The whole call still arrives in the assistant line.

// writingTool is a tool_use block being streamed.
type writingTool struct {
	id, name string
	input    strings.Builder
	title    string // last title emitted
}

// toolStart registers a streamed tool_use block (content_block_start).
func (d *decoder) toolStart(parent string, index int, id, name string) {
	if d.writing == nil {
		d.writing = map[toolSlot]*writingTool{}
	}
	d.writing[toolSlot{parent, index}] = &writingTool{id: id, name: name}
}

// toolDelta adds a piece of input and returns a partial ActionStarted when
// the title it gives changed (commands only).
func (d *decoder) toolDelta(parent string, index int, piece string) []engine.Event {
	w := d.writing[toolSlot{parent, index}]
	if w == nil {
		return nil
	}
	w.input.WriteString(piece)
	in, ok := closeJSON(w.input.String())
	if !ok {
		return nil
	}
	// The title is a cut of the input: redact the input first (a secret
	// cut in two is caught once it is whole; the bot redacts titles too).
	kind, title := toolkinds.Describe(w.name, json.RawMessage(d.clean(in)), d.workDir)
	if kind != toolkinds.Command || title == "" || title == w.title {
		// Only a command reads well half-written; a path does not.
		return nil
	}
	w.title = title
	return []engine.Event{engine.ActionStarted{ToolUseID: w.id, ParentToolUseID: parent, Tool: w.name, Kind: kind, Title: title, Partial: true}}
}

// toolStop forgets a streamed block (content_block_stop).
func (d *decoder) toolStop(parent string, index int) {
	delete(d.writing, toolSlot{parent, index})
}

type toolSlot struct {
	parent string
	index  int
}

// closeJSON completes the start of a JSON value so that it parses: it
// closes an open string (dropping an escape cut in half) and the objects
// and arrays still open, and drops a dangling comma or a key without a
// value. ok is false when the start cannot be made valid that way (a key
// cut in half, a number or literal cut short): wait for more.
func closeJSON(s string) (string, bool) {
	var stack []byte
	inString, escaped := false, false
	strStart := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString, strStart = true, i
		case c == '{' || c == '[':
			stack = append(stack, c)
		case c == '}' || c == ']':
			if len(stack) == 0 {
				return "", false
			}
			stack = stack[:len(stack)-1]
		}
	}
	out := s
	if inString {
		if escaped {
			out = out[:len(out)-1]
		}
		// An escape \uXXXX cut short: drop it.
		if j := strings.LastIndex(out, `\u`); j > strStart && len(out)-j < 6 && !strings.HasSuffix(out[:j], `\`) {
			out = out[:j]
		}
		out += `"`
	}
	t := strings.TrimRight(out, " \t\r\n")
	switch {
	case strings.HasSuffix(t, ","):
		t = t[:len(t)-1]
	case strings.HasSuffix(t, ":"):
		t += "null"
	}
	var b strings.Builder
	b.WriteString(t)
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == '{' {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	if !json.Valid([]byte(b.String())) {
		return "", false
	}
	return b.String(), true
}
