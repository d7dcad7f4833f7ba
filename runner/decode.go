package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/toolkinds"
)

// line is the union of every stdout line shape we read. Fields that a type
// does not use stay zero; unknown fields are ignored by encoding/json.
type line struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	SessionID       string          `json:"session_id"`
	ParentToolUseID string          `json:"parent_tool_use_id"`
	Message         json.RawMessage `json:"message"`

	// system/init, system/status
	Cwd            string   `json:"cwd"`
	Model          string   `json:"model"`
	PermissionMode string   `json:"permissionMode"`
	Tools          []string `json:"tools"`
	Version        string   `json:"claude_code_version"`
	APIKeySource   string   `json:"apiKeySource"`

	// system/permission_denied
	ToolName  string `json:"tool_name"`
	ToolUseID string `json:"tool_use_id"`

	// system/status: "compacting", or null
	Status json.RawMessage `json:"status"`

	// system/compact_boundary
	CompactMetadata *struct {
		Trigger    string `json:"trigger"`
		PreTokens  int    `json:"pre_tokens"`
		PostTokens int    `json:"post_tokens"`
	} `json:"compact_metadata"`

	// system/api_retry. Error is a string there and on the synthetic
	// assistant line of a failed call; read leniently (see str).
	Attempt      int             `json:"attempt"`
	MaxRetries   int             `json:"max_retries"`
	RetryDelayMS float64         `json:"retry_delay_ms"`
	ErrorStatus  int             `json:"error_status"`
	Error        json.RawMessage `json:"error"`

	// rate_limit_event
	RateLimitInfo json.RawMessage `json:"rate_limit_info"`

	// command_lifecycle: a user line's id (its uuid) and where it stands
	CommandUUID string `json:"command_uuid"`
	State       string `json:"state"`

	// stream_event
	Event json.RawMessage `json:"event"`

	// control_request / control_response
	RequestID string          `json:"request_id"`
	Request   json.RawMessage `json:"request"`
	Response  json.RawMessage `json:"response"`

	// result
	IsError           bool            `json:"is_error"`
	Result            *string         `json:"result"`
	NumTurns          int             `json:"num_turns"`
	DurationMS        float64         `json:"duration_ms"`
	DurationAPIMS     float64         `json:"duration_api_ms"`
	TotalCostUSD      float64         `json:"total_cost_usd"`
	Usage             engine.Usage    `json:"usage"`
	PermissionDenials []engine.Denial `json:"permission_denials"`
	TerminalReason    string          `json:"terminal_reason"`
	Errors            json.RawMessage `json:"errors"`
	APIError          json.RawMessage `json:"api_error"`
	ModelUsage        json.RawMessage `json:"modelUsage"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type messageBody struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *engine.Usage   `json:"usage"`
}

type canUseTool struct {
	Subtype                 string            `json:"subtype"`
	ToolName                string            `json:"tool_name"`
	DisplayName             string            `json:"display_name"`
	Input                   json.RawMessage   `json:"input"`
	Description             string            `json:"description"`
	Suggestions             []json.RawMessage `json:"permission_suggestions"`
	BlockedPath             string            `json:"blocked_path"`
	ToolUseID               string            `json:"tool_use_id"`
	DecisionReasonType      string            `json:"decision_reason_type"`
	ClassifierApprovable    *bool             `json:"classifier_approvable"`
	RequiresUserInteraction bool              `json:"requires_user_interaction"`
}

// controlResponse is the body of a control_response line from the CLI.
type controlResponse struct {
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Response  json.RawMessage `json:"response"`
	Error     string          `json:"error"`
}

// decoder turns stdout lines into events. It keeps the little state needed
// across lines (which tool_use ids are open) and is not safe for concurrent use.
type decoder struct {
	workDir string
	// open maps a tool_use id to whether it is still running, so a
	// tool_result can be matched and a stray one ignored.
	open map[string]bool
	// redact removes secrets from display texts (Options.Redact); nil
	// leaves them as they are.
	redact func(string) string
	// context and model are the input size and model of the turn's last
	// main-thread model call, for TurnCompleted.ContextTokens.
	context int
	model   string
	// writing holds the tool calls being streamed (partial messages).
	writing map[toolSlot]*writingTool
}

// clean is redact, or s unchanged without one.
func (d *decoder) clean(s string) string {
	if d.redact == nil {
		return s
	}
	return d.redact(s)
}

func newDecoder(workDir string) *decoder {
	return &decoder{workDir: workDir, open: map[string]bool{}}
}

// decoded is what one line produced: events for the consumer, plus control
// traffic the session handles itself.
type decoded struct {
	events   []engine.Event
	request  *controlRequestIn // a control_request from the CLI
	response *controlResponse  // a reply to one of our control requests
}

type controlRequestIn struct {
	RequestID string
	Subtype   string
	Body      json.RawMessage
}

// decode parses one line. A line that is not JSON is an error; an unknown
// type is not (it yields nothing).
func (d *decoder) decode(raw []byte) (decoded, error) {
	var l line
	if err := json.Unmarshal(raw, &l); err != nil {
		return decoded{}, fmt.Errorf("decode stream line: %w", err)
	}
	switch l.Type {
	case "system":
		return decoded{events: d.system(&l)}, nil
	case "assistant":
		return decoded{events: d.assistant(&l)}, nil
	case "user":
		return decoded{events: d.user(&l)}, nil
	case "stream_event":
		return decoded{events: d.streamEvent(&l)}, nil
	case "result":
		return decoded{events: []engine.Event{d.result(&l)}}, nil
	case "control_request":
		return d.controlRequest(&l), nil
	case "control_response":
		var cr controlResponse
		if err := json.Unmarshal(l.Response, &cr); err != nil || cr.RequestID == "" {
			return decoded{}, fmt.Errorf("decode control_response: missing request_id")
		}
		return decoded{response: &cr}, nil
	case "control_cancel_request":
		if l.RequestID == "" {
			return decoded{}, fmt.Errorf("decode control_cancel_request: missing request_id")
		}
		return decoded{events: []engine.Event{engine.ApprovalCancelled{RequestID: l.RequestID}}}, nil
	case "rate_limit_event":
		return decoded{events: []engine.Event{rateLimited(l.RateLimitInfo, raw)}}, nil
	case "command_lifecycle":
		return decoded{events: lifecycle(&l)}, nil
	}
	// keep_alive and future types carry nothing for us.
	return decoded{}, nil
}

func (d *decoder) system(l *line) []engine.Event {
	switch l.Subtype {
	case "init":
		return []engine.Event{engine.SessionStarted{
			SessionID:      l.SessionID,
			Model:          l.Model,
			Cwd:            l.Cwd,
			PermissionMode: fromClaudeMode(l.PermissionMode),
			Tools:          l.Tools,
			Version:        l.Version,
			Billing:        billing(l.APIKeySource),
		}}
	case "status":
		if l.PermissionMode != "" {
			return []engine.Event{engine.PermissionModeChanged{Mode: fromClaudeMode(l.PermissionMode)}}
		}
		if str(l.Status) == "compacting" {
			return []engine.Event{engine.Compacting{}}
		}
	case "api_retry":
		return []engine.Event{engine.APIRetry{Attempt: l.Attempt, MaxRetries: l.MaxRetries, HTTPStatus: l.ErrorStatus, Error: str(l.Error),
			Delay: time.Duration(l.RetryDelayMS * float64(time.Millisecond))}}
	case "permission_denied":
		var m struct {
			Message string `json:"message"`
		}
		// The message field of this subtype is a string, unlike other lines.
		_ = json.Unmarshal(l.Message, &m.Message)
		return []engine.Event{engine.PermissionDenied{ToolName: l.ToolName, ToolUseID: l.ToolUseID, Message: d.clean(m.Message)}}
	case "compact_boundary":
		c := engine.Compacted{}
		if l.CompactMetadata != nil {
			c.Trigger, c.PreTokens, c.PostTokens = l.CompactMetadata.Trigger, l.CompactMetadata.PreTokens, l.CompactMetadata.PostTokens
		}
		return []engine.Event{c}
	}
	return nil
}

func (d *decoder) blocks(msg json.RawMessage) (messageBody, []contentBlock) {
	var m messageBody
	if len(msg) == 0 || json.Unmarshal(msg, &m) != nil {
		return m, nil
	}
	var blocks []contentBlock
	if json.Unmarshal(m.Content, &blocks) != nil {
		// A plain string content is one text block.
		var s string
		if json.Unmarshal(m.Content, &s) == nil && s != "" {
			blocks = []contentBlock{{Type: "text", Text: s}}
		}
	}
	return m, blocks
}

func (d *decoder) assistant(l *line) []engine.Event {
	m, blocks := d.blocks(l.Message)
	if u := m.Usage; u != nil && l.ParentToolUseID == "" {
		// Every call's input is the whole conversation so far: the last
		// one says how full the context is. A failed call's synthetic
		// message reports zeros and says nothing.
		if n := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens; n > 0 {
			d.context, d.model = n, m.Model
		}
	}
	var out []engine.Event
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				out = append(out, engine.Text{MessageID: m.ID, ParentToolUseID: l.ParentToolUseID, Text: d.clean(b.Text)})
			}
		case "thinking":
			if b.Thinking != "" {
				out = append(out, engine.Thinking{MessageID: m.ID, Text: d.clean(b.Thinking)})
			}
		case "tool_use":
			// The title is a cut of the input: redact the input first.
			kind, title := toolkinds.Describe(b.Name, json.RawMessage(d.clean(string(b.Input))), d.workDir)
			d.open[b.ID] = true
			out = append(out, engine.ActionStarted{
				ToolUseID:       b.ID,
				ParentToolUseID: l.ParentToolUseID,
				Tool:            b.Name,
				Kind:            kind,
				Title:           title,
				Input:           b.Input,
			})
		}
	}
	return out
}

func (d *decoder) user(l *line) []engine.Event {
	_, blocks := d.blocks(l.Message)
	var out []engine.Event
	for _, b := range blocks {
		if b.Type != "tool_result" || b.ToolUseID == "" {
			continue
		}
		// A result for a tool we never saw start is still reported, but
		// only once: a second result for a closed id is dropped.
		if running, seen := d.open[b.ToolUseID]; seen && !running {
			continue
		}
		d.open[b.ToolUseID] = false
		out = append(out, engine.ActionCompleted{
			ToolUseID:       b.ToolUseID,
			ParentToolUseID: l.ParentToolUseID,
			OK:              !b.IsError,
			Detail:          toolkinds.Truncate(oneLine(d.clean(resultText(b.Content))), 120),
		})
	}
	return out
}

// resultText flattens tool_result content, which is a string or a list of blocks.
func resultText(c json.RawMessage) string {
	if len(c) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []contentBlock
	if json.Unmarshal(c, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

func oneLine(s string) string {
	if len(s) > 4096 {
		s = s[:4096]
	}
	return strings.Join(strings.Fields(s), " ")
}

func (d *decoder) streamEvent(l *line) []engine.Event {
	var ev struct {
		Type  string `json:"type"`
		Index int    `json:"index"`
		Delta struct {
			Type        string `json:"type"`
			Text        string `json:"text"`
			PartialJSON string `json:"partial_json"`
		} `json:"delta"`
		Block struct {
			Type string `json:"type"`
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"content_block"`
	}
	if json.Unmarshal(l.Event, &ev) != nil {
		return nil
	}
	switch {
	case ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" && ev.Delta.Text != "":
		// A secret split across two deltas is not caught here: the bot
		// redacts the text it joins (redact.Settled) before showing it.
		return []engine.Event{engine.Text{ParentToolUseID: l.ParentToolUseID, Text: d.clean(ev.Delta.Text), Partial: true}}
	case ev.Type == "content_block_start" && ev.Block.Type == "tool_use" && ev.Block.ID != "":
		d.toolStart(l.ParentToolUseID, ev.Index, ev.Block.ID, ev.Block.Name)
	case ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta":
		return d.toolDelta(l.ParentToolUseID, ev.Index, ev.Delta.PartialJSON)
	case ev.Type == "content_block_stop":
		d.toolStop(l.ParentToolUseID, ev.Index)
	}
	return nil
}

func (d *decoder) result(l *line) engine.Event {
	apiError := str(l.APIError)
	t := engine.TurnCompleted{
		SessionID:      l.SessionID,
		Outcome:        outcome(l.IsError, l.Subtype, l.TerminalReason, apiError),
		Reason:         reason(l.Subtype, l.TerminalReason, apiError),
		SessionCostUSD: l.TotalCostUSD,
		Duration:       time.Duration(l.DurationMS * float64(time.Millisecond)),
		APIDuration:    time.Duration(l.DurationAPIMS * float64(time.Millisecond)),
		NumTurns:       l.NumTurns,
		Usage:          l.Usage,
		Denials:        l.PermissionDenials,
		ContextTokens:  d.context,
		ContextWindow:  contextWindow(l.ModelUsage, d.model),
	}
	t.OK = t.Outcome == engine.OutcomeDone
	d.context, d.model = 0, ""
	if l.Result != nil {
		t.Result = d.clean(*l.Result)
	}
	if !t.OK {
		t.ErrorText = d.clean(resultError(l, t.Result))
	}
	// Any tool still open will never complete in this turn.
	clear(d.open)
	return t
}

func resultError(l *line, result string) string {
	if interrupted(l.TerminalReason) {
		// The CLI's errors list holds internal diagnostics here; the
		// person only needs to know the turn was stopped.
		return "interrupted"
	}
	if l.IsError && result != "" {
		return result
	}
	var errs []string
	if json.Unmarshal(l.Errors, &errs) == nil && len(errs) > 0 {
		return strings.Join(errs, "; ")
	}
	if l.TerminalReason != "" && l.TerminalReason != "completed" {
		return l.TerminalReason
	}
	if l.Subtype != "" && l.Subtype != "success" {
		return l.Subtype
	}
	return "unknown error"
}

func (d *decoder) controlRequest(l *line) decoded {
	var head struct {
		Subtype string `json:"subtype"`
	}
	_ = json.Unmarshal(l.Request, &head)
	in := &controlRequestIn{RequestID: l.RequestID, Subtype: head.Subtype, Body: l.Request}
	if head.Subtype != "can_use_tool" {
		return decoded{request: in}
	}
	var c canUseTool
	if err := json.Unmarshal(l.Request, &c); err != nil {
		return decoded{request: in}
	}
	return decoded{request: in, events: []engine.Event{engine.ApprovalRequest{
		RequestID:               l.RequestID,
		Kind:                    requestKind(c.ToolName),
		ToolName:                c.ToolName,
		DisplayName:             c.DisplayName,
		Input:                   c.Input,
		Suggestions:             c.Suggestions,
		ToolUseID:               c.ToolUseID,
		BlockedPath:             c.BlockedPath,
		Description:             c.Description,
		DecisionReasonType:      c.DecisionReasonType,
		ClassifierApprovable:    c.ClassifierApprovable,
		RequiresUserInteraction: c.RequiresUserInteraction,
	}}}
}

// billing says how the CLI pays from init's apiKeySource: "none" when it
// runs on a claude.ai subscription login (no key), else where its key
// comes from ("ANTHROPIC_API_KEY", "apiKeyHelper", …); absent in old
// versions.
func billing(apiKeySource string) engine.Billing {
	switch apiKeySource {
	case "":
		return engine.BillingUnknown
	case "none":
		return engine.BillingSubscription
	}
	return engine.BillingAPIKey
}
