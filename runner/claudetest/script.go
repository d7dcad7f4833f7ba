package claudetest

import (
	"net/http"
	"time"
)

// Step answers one request of the script. The step used for a request is
// picked by the number of assistant messages the request already carries, so
// tool results and --resume continue the script where it left off, and
// retries of a failed request get the same step again.
type Step interface {
	Respond(req *Request) Reply
}

// StepFunc computes the reply from the request, e.g. to write to the plan
// file the CLI named (see PlanFilePath).
type StepFunc func(req *Request) Reply

// Respond calls f.
func (f StepFunc) Respond(req *Request) Reply { return f(req) }

// Reply is what the fake model answers to one request: content parts, or an
// HTTP error when Status is set.
type Reply struct {
	Parts []Part
	// StopReason defaults to "tool_use" when a part is a tool use, else "end_turn".
	StopReason string
	// Delay is waited before every delta event (a slow stream a test can
	// interrupt). The wait ends early when the client goes away.
	Delay time.Duration
	// Hang, when > 0, stops the stream after Hang-1 delta events and holds
	// the connection open until the client goes away (an interrupt) or the
	// API closes: a partial answer that never finishes.
	Hang int
	// Uses, when > 0, retires this step after it answered that many
	// requests: later requests are answered as if the step were not in the
	// script. Only for replies that leave no assistant message in the
	// conversation (errors, streams interrupted before their first delta),
	// since the step index is otherwise the number of assistant messages.
	Uses int

	// Status, when non-zero, makes the reply an HTTP error with Anthropic's
	// error JSON; ErrType defaults from the status (400 invalid_request_error, ...).
	Status     int
	ErrType    string
	ErrMessage string

	// InputTokens, when > 0, is the input token count the reply reports
	// instead of an estimate from the request's size: a context that looks
	// full, to make the CLI compact.
	InputTokens int

	// Header is added to the HTTP response, error or not: the rate-limit
	// headers the real API sends (see RateLimited).
	Header http.Header
}

// Respond returns r itself, so a fixed Reply is a Step.
func (r Reply) Respond(*Request) Reply { return r }

// Part is one content block of a reply.
type Part struct {
	Kind string // "text", "tool_use" or "thinking"
	Text string // text and thinking
	// ID is the tool_use id; a fresh "toolu_..." id is generated when empty.
	ID    string
	Name  string
	Input map[string]any
}

// Text is a text content block.
func Text(s string) Part { return Part{Kind: "text", Text: s} }

// Thinking is a thinking block (with a fake signature).
func Thinking(s string) Part { return Part{Kind: "thinking", Text: s} }

// ToolUse is a tool_use block; the input is streamed as input_json_delta pieces.
func ToolUse(name string, input map[string]any) Part {
	return Part{Kind: "tool_use", Name: name, Input: input}
}

// Answer is a reply made of the given parts.
func Answer(parts ...Part) Reply { return Reply{Parts: parts} }

// Say is a reply of one text block.
func Say(text string) Reply { return Answer(Text(text)) }

// Err is an HTTP error reply. The CLI retries some errors (a 400 six times),
// and every retry gets this step again. A failed call adds no assistant
// message, so later turns of the conversation get this step again too,
// unless it is limited with Times.
func Err(status int, message string) Reply {
	return Reply{Status: status, ErrMessage: message}
}

// WithHeader returns r with the response header key set to value.
func (r Reply) WithHeader(key, value string) Reply {
	h := r.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(key, value)
	r.Header = h
	return r
}

// WithInputTokens returns r reporting n input tokens (see Reply.InputTokens).
func (r Reply) WithInputTokens(n int) Reply {
	r.InputTokens = n
	return r
}

// Slow returns r with a pause of d before every delta event.
func (r Reply) Slow(d time.Duration) Reply {
	r.Delay = d
	return r
}

// HangAfter returns r streaming only its first n delta events, then holding
// the stream open until the client goes away or the API closes.
func (r Reply) HangAfter(n int) Reply {
	r.Hang = n + 1
	return r
}

// Times returns r retired after n uses (see Reply.Uses). Err(400, m).Times(6)
// matches the CLI giving up after six attempts, so the next user turn gets
// the following step.
func (r Reply) Times(n int) Reply {
	r.Uses = n
	return r
}

// WithStopReason returns r with an explicit stop_reason (e.g. "max_tokens").
func (r Reply) WithStopReason(reason string) Reply {
	r.StopReason = reason
	return r
}

// DefaultReply answers requests beyond the end of the script.
var DefaultReply = Say("done")

func (r Reply) stopReason() string {
	if r.StopReason != "" {
		return r.StopReason
	}
	for _, p := range r.Parts {
		if p.Kind == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func (r Reply) errType() string {
	if r.ErrType != "" {
		return r.ErrType
	}
	return errTypeFor(r.Status)
}

// errTypeFor maps a status to the error type Anthropic's API uses for it.
func errTypeFor(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	default:
		return "api_error"
	}
}
