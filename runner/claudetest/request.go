package claudetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// Request is one POST /v1/messages call the CLI made, decoded enough for
// tests to assert on what the model was shown.
type Request struct {
	Path      string // path with query, e.g. "/v1/messages?beta=true"
	Header    http.Header
	Model     string
	Stream    bool
	MaxTokens int
	// System is the text of the system prompt (blocks joined with "\n").
	System   string
	Messages []Message
	// Tools are the names of the tools sent in full (deferred tools are not listed by the CLI).
	Tools []string
	// Raw is the request body exactly as received.
	Raw json.RawMessage
}

// Message is one entry of the request's messages. Roles are kept as sent:
// the CLI also sends role "system" messages.
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block of a request message. Content strings are
// normalized to a single text block.
type Block struct {
	Type string // text, tool_use, tool_result, thinking, image, ...
	Text string // text blocks; thinking blocks carry their text here too
	// tool_use
	ID    string
	Name  string
	Input json.RawMessage
	// tool_result
	ToolUseID string
	IsError   bool
	// Result is the tool_result content flattened to text.
	Result string
	Raw    json.RawMessage
}

// ToolResult is a tool_result block found in a request.
type ToolResult struct {
	ToolUseID string
	Content   string
	IsError   bool
}

type wireRequest struct {
	Model     string            `json:"model"`
	Stream    bool              `json:"stream"`
	MaxTokens int               `json:"max_tokens"`
	System    json.RawMessage   `json:"system"`
	Messages  []wireMessage     `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// parseRequest decodes a Messages API body. It is lenient about shapes the
// real API accepts (string or block content) and strict only about JSON.
func parseRequest(r *http.Request, body []byte) (*Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("decode request body: %w", err)
	}
	req := &Request{
		Path:      r.URL.RequestURI(),
		Header:    r.Header.Clone(),
		Model:     w.Model,
		Stream:    w.Stream,
		MaxTokens: w.MaxTokens,
		Raw:       json.RawMessage(body),
	}
	sys, err := parseBlocks(w.System)
	if err != nil {
		return nil, fmt.Errorf("decode system: %w", err)
	}
	req.System = joinText(sys)
	for i, m := range w.Messages {
		blocks, err := parseBlocks(m.Content)
		if err != nil {
			return nil, fmt.Errorf("decode messages[%d].content: %w", i, err)
		}
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: blocks})
	}
	for _, t := range w.Tools {
		var tool struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(t, &tool); err != nil {
			return nil, fmt.Errorf("decode tool: %w", err)
		}
		req.Tools = append(req.Tools, tool.Name)
	}
	return req, nil
}

// parseBlocks accepts absent/null, a string, or an array of blocks.
func parseBlocks(raw json.RawMessage) ([]Block, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: "text", Text: s}}, nil
	}
	var wires []json.RawMessage
	if err := json.Unmarshal(raw, &wires); err != nil {
		return nil, err
	}
	blocks := make([]Block, 0, len(wires))
	for _, one := range wires {
		var w wireBlock
		if err := json.Unmarshal(one, &w); err != nil {
			return nil, err
		}
		b := Block{
			Type: w.Type, Text: w.Text, ID: w.ID, Name: w.Name, Input: w.Input,
			ToolUseID: w.ToolUseID, IsError: w.IsError, Raw: one,
		}
		if w.Type == "thinking" {
			b.Text = w.Thinking
		}
		if w.Type == "tool_result" {
			inner, err := parseBlocks(w.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result content: %w", err)
			}
			b.Result = joinText(inner)
		}
		blocks = append(blocks, b)
	}
	return blocks, nil
}

func joinText(blocks []Block) string {
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// AssistantTurns is the number of assistant messages in the request: the
// index of the script step that answers it.
func (r *Request) AssistantTurns() int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			n++
		}
	}
	return n
}

// ToolResults lists every tool_result block in the request, in order.
func (r *Request) ToolResults() []ToolResult {
	var out []ToolResult
	for _, m := range r.Messages {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				out = append(out, ToolResult{ToolUseID: b.ToolUseID, Content: b.Result, IsError: b.IsError})
			}
		}
	}
	return out
}

// UserTexts lists the text blocks of user messages, in order, including the
// CLI's own <system-reminder> blocks.
func (r *Request) UserTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// AllText joins every piece of text the model would see: the system prompt,
// text and thinking blocks of all messages, tool results and tool inputs.
func (r *Request) AllText() string {
	var sb strings.Builder
	sb.WriteString(r.System)
	for _, m := range r.Messages {
		for _, b := range m.Content {
			sb.WriteByte('\n')
			switch b.Type {
			case "tool_result":
				sb.WriteString(b.Result)
			case "tool_use":
				sb.Write(b.Input)
			default:
				sb.WriteString(b.Text)
			}
		}
	}
	return sb.String()
}

// planPath matches an absolute plan file path as the CLI writes it into the
// prompt, e.g. "/home/u/.claude/plans/plan-some-words.md"; quotes, backticks
// and brackets around it are not part of the match.
var planPath = regexp.MustCompile("/[^\\s\"'`<>()\\[\\]{}]*/\\.claude/plans/[^\\s\"'`<>()\\[\\]{}/]+\\.md")

// PlanFilePath returns the plan file path the CLI told the model to write in
// plan mode, or "" when the request has none.
func PlanFilePath(req *Request) string {
	return planPath.FindString(req.AllText())
}
