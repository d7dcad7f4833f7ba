package codex

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/toolkinds"
)

// handle is one line from Codex: a response to our request, one of its
// requests (approvals), or a notification. A line that is not JSON-RPC,
// or a method we do not know, is logged and skipped.
func (c *Conn) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		c.log.Warn("codex message unreadable, skipped", "err", err, "bytes", len(line))
		return
	}
	switch {
	case m.Method == "" && len(m.ID) > 0:
		if !c.rpc.response(m) {
			c.log.Warn("codex response to no request, skipped", "id", string(m.ID))
		}
	case m.Method != "" && len(m.ID) > 0:
		c.request(m)
	case m.Method != "":
		c.notification(m)
	default:
		c.log.Warn("codex message of no kind, skipped", "bytes", len(line))
	}
}

// The parts of Codex's items the engine reads (thread items, v2 schema).
type item struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	ClientID string `json:"clientId"` // a userMessage's: the id it was steered under
	Text     string `json:"text"`
	Command  string `json:"command"`
	Cwd      string `json:"cwd"`
	Status   string `json:"status"`
	ExitCode *int   `json:"exitCode"`
	Output   string `json:"aggregatedOutput"`
	Actions  []struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Path    string `json:"path"`
		Name    string `json:"name"`
		Query   string `json:"query"`
	} `json:"commandActions"`
	Changes json.RawMessage `json:"changes"`
	Query   string          `json:"query"`
	Server  string          `json:"server"`
	Tool    string          `json:"tool"`
	Summary []string        `json:"summary"`
}

type itemParams struct {
	Item   item   `json:"item"`
	TurnID string `json:"turnId"`
}

func (c *Conn) notification(m message) {
	switch m.Method {
	case "turn/started":
		var p struct {
			Turn struct {
				ID string `json:"id"`
			} `json:"turn"`
		}
		if c.decode(m, &p) {
			c.mu.Lock()
			c.turnKnownLocked(p.Turn.ID)
			ev := engine.SessionStarted{SessionID: c.thread, Model: c.model, Cwd: c.cwd, PermissionMode: c.mode, Version: c.version}
			c.mu.Unlock()
			c.queue.Push(ev)
		}
	case "item/agentMessage/delta":
		var p struct {
			ItemID string `json:"itemId"`
			Delta  string `json:"delta"`
		}
		if c.decode(m, &p) && p.Delta != "" {
			c.queue.Push(engine.Text{MessageID: p.ItemID, Text: c.o.Redact(p.Delta), Partial: true})
		}
	case "item/started":
		var p itemParams
		if c.decode(m, &p) {
			c.itemStarted(p.Item)
		}
	case "item/completed":
		var p itemParams
		if c.decode(m, &p) {
			c.itemCompleted(p.Item)
		}
	case "serverRequest/resolved":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if c.decode(m, &p) {
			// Resolved without our answer (an interrupt): withdrawn.
			id := c.ids + string(p.RequestID)
			c.mu.Lock()
			_, open := c.pending[id]
			delete(c.pending, id)
			c.mu.Unlock()
			if open {
				c.queue.Push(engine.ApprovalCancelled{RequestID: id})
			}
		}
	case "thread/tokenUsage/updated":
		c.tokenUsage(m)
	case "error":
		var p struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
			WillRetry bool `json:"willRetry"`
		}
		if c.decode(m, &p) && !p.WillRetry {
			c.mu.Lock()
			c.turnErr = p.Error.Message
			c.mu.Unlock()
		}
	case "turn/completed":
		c.turnCompleted(m)
	default:
		// Codex says much the engine has no use for (thread status,
		// rate limits of a ChatGPT login, config warnings, …).
		c.log.Debug("codex notification skipped", "method", m.Method)
	}
}

func (c *Conn) decode(m message, v any) bool {
	if err := json.Unmarshal(m.Params, v); err != nil {
		c.log.Warn("codex message unreadable, skipped", "method", m.Method, "err", err)
		return false
	}
	return true
}

// describe is an item as an action: its tool name, kind and title;
// ok false for items that are no action (messages, reasoning).
func (c *Conn) describe(it item) (tool string, kind toolkinds.Kind, title string, ok bool) {
	switch it.Type {
	case "commandExecution":
		title = it.Command
		kind = toolkinds.Command
		if len(it.Actions) == 1 {
			a := it.Actions[0]
			title = a.Command
			switch a.Type {
			case "read":
				kind, title = toolkinds.Tool, "read "+toolkinds.RelPath(a.Path, c.cwd)
			case "listFiles", "search":
				kind = toolkinds.Tool
			}
		}
		return "commandExecution", kind, toolkinds.Truncate(oneLine(title), toolkinds.MaxTitle), true
	case "fileChange":
		return "fileChange", toolkinds.FileChange, toolkinds.Truncate(strings.Join(c.paths(it.Changes), ", "), toolkinds.MaxTitle), true
	case "webSearch":
		return "webSearch", toolkinds.WebSearch, toolkinds.Truncate(oneLine(it.Query), toolkinds.MaxTitle), true
	case "mcpToolCall":
		return "mcpToolCall", toolkinds.Tool, toolkinds.Truncate(it.Server+" "+it.Tool, toolkinds.MaxTitle), true
	}
	return "", "", "", false
}

func (c *Conn) paths(changes json.RawMessage) []string {
	var cs []struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(changes, &cs) // no paths: an empty title
	out := make([]string, 0, len(cs))
	for _, ch := range cs {
		out = append(out, toolkinds.RelPath(ch.Path, c.cwd))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (c *Conn) itemStarted(it item) {
	if it.Type == "userMessage" {
		c.steerTaken(it.ClientID)
		return
	}
	if it.Type == "fileChange" {
		c.mu.Lock()
		c.changes[it.ID] = it.Changes
		c.mu.Unlock()
	}
	tool, kind, title, ok := c.describe(it)
	if !ok {
		return
	}
	input, _ := json.Marshal(map[string]any{"command": it.Command, "cwd": it.Cwd, "changes": it.Changes})
	c.queue.Push(engine.ActionStarted{ToolUseID: it.ID, Tool: tool, Kind: kind, Title: c.o.Redact(title), Input: input})
}

func (c *Conn) itemCompleted(it item) {
	switch it.Type {
	case "agentMessage":
		c.mu.Lock()
		c.lastText = it.Text
		c.mu.Unlock()
		c.queue.Push(engine.Text{MessageID: it.ID, Text: c.o.Redact(it.Text)})
		return
	case "reasoning":
		if t := strings.Join(it.Summary, "\n"); t != "" {
			c.queue.Push(engine.Thinking{MessageID: it.ID, Text: c.o.Redact(t)})
		}
		return
	}
	if _, _, _, ok := c.describe(it); !ok {
		return
	}
	ok := it.Status == "completed" && (it.ExitCode == nil || *it.ExitCode == 0)
	detail := it.Status
	if out := strings.TrimSpace(it.Output); out != "" {
		lines := strings.Split(out, "\n")
		detail = toolkinds.Truncate(oneLine(lines[len(lines)-1]), toolkinds.MaxTitle)
	}
	c.queue.Push(engine.ActionCompleted{ToolUseID: it.ID, OK: ok, Detail: c.o.Redact(detail)})
}

// request is one of Codex's own requests: an approval becomes an
// ApprovalRequest; any other is refused at once, so Codex does not wait.
func (c *Conn) request(m message) {
	var p struct {
		ItemID    string            `json:"itemId"`
		Command   string            `json:"command"`
		Cwd       string            `json:"cwd"`
		Reason    string            `json:"reason"`
		GrantRoot string            `json:"grantRoot"`
		Decisions []json.RawMessage `json:"availableDecisions"`
		Actions   []struct {
			Command string `json:"command"`
		} `json:"commandActions"`
	}
	var req engine.ApprovalRequest
	var a approval
	switch m.Method {
	case "item/commandExecution/requestApproval":
		if !c.decode(m, &p) {
			_ = c.rpc.refuse(m.ID, -32602, "unreadable params")
			return
		}
		shown := p.Command
		if len(p.Actions) == 1 {
			shown = p.Actions[0].Command
		}
		input, _ := json.Marshal(map[string]string{"command": shown, "cwd": p.Cwd})
		req = engine.ApprovalRequest{Kind: engine.RequestCommand, ToolName: "commandExecution", DisplayName: "command", Input: input,
			ToolUseID: p.ItemID, Description: p.Reason}
		for _, d := range p.Decisions {
			if string(d) == `"acceptForSession"` {
				a.sessionWide = true
			}
		}
		if a.sessionWide {
			req.Suggestions = []json.RawMessage{sessionRule("commandExecution", shown)}
		}
	case "item/fileChange/requestApproval":
		if !c.decode(m, &p) {
			_ = c.rpc.refuse(m.ID, -32602, "unreadable params")
			return
		}
		c.mu.Lock()
		changes := c.changes[p.ItemID]
		c.mu.Unlock()
		input, _ := json.Marshal(map[string]any{"changes": changes, "grantRoot": p.GrantRoot})
		req = engine.ApprovalRequest{Kind: engine.RequestFileChange, ToolName: "fileChange", DisplayName: "file change", Input: input,
			ToolUseID: p.ItemID, Description: p.Reason}
		if p.GrantRoot != "" {
			req.BlockedPath = p.GrantRoot
		}
		// The file-change decision always has acceptForSession (schema).
		a.sessionWide, a.fileChange = true, true
		req.Suggestions = []json.RawMessage{sessionRule("fileChange", strings.Join(c.paths(changes), ", "))}
	case "item/tool/requestUserInput":
		var ok bool
		if req, a, ok = c.question(m); !ok {
			_ = c.rpc.refuse(m.ID, -32602, "unreadable params")
			return
		}
	default:
		c.log.Warn("codex request unknown, refused", "method", m.Method)
		_ = c.rpc.refuse(m.ID, -32601, "untether does not handle "+m.Method)
		return
	}
	a.id = m.ID
	req.RequestID = c.ids + string(m.ID)
	c.mu.Lock()
	c.pending[req.RequestID] = a
	c.mu.Unlock()
	c.queue.Push(req)
}

// sessionRule is the suggestion behind "Always allow" for a request Codex
// lets us accept for the rest of the session, in the words the approvals
// package puts into a sentence ("For this session, always allow …").
func sessionRule(tool, what string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "addRules", "behavior": "allow", "destination": "session",
		"rules": []map[string]string{{"toolName": tool, "ruleContent": what}}})
	return b
}

func (c *Conn) tokenUsage(m message) {
	type counts struct {
		Input       int `json:"inputTokens"`
		Cached      int `json:"cachedInputTokens"`
		CacheWrite  int `json:"cacheWriteInputTokens"`
		Output      int `json:"outputTokens"`
		TotalTokens int `json:"totalTokens"`
	}
	var p struct {
		TokenUsage struct {
			Last   counts `json:"last"`
			Window int    `json:"modelContextWindow"`
		} `json:"tokenUsage"`
	}
	if !c.decode(m, &p) {
		return
	}
	// One notification per model call (measured), "last" being that
	// call's: the turn's usage is their sum. Codex counts cached input
	// inside input; the engine's Usage counts them apart, like Claude's.
	l := p.TokenUsage.Last
	c.mu.Lock()
	c.usage.InputTokens += l.Input - l.Cached
	c.usage.CacheReadInputTokens += l.Cached
	c.usage.CacheCreationInputTokens += l.CacheWrite
	c.usage.OutputTokens += l.Output
	c.context, c.window = l.Input, p.TokenUsage.Window
	c.mu.Unlock()
}

func (c *Conn) turnCompleted(m message) {
	var p struct {
		Turn struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
			DurationMs int64 `json:"durationMs"`
		} `json:"turn"`
	}
	if !c.decode(m, &p) {
		return
	}
	c.mu.Lock()
	tc := engine.TurnCompleted{SessionID: c.thread, Reason: p.Turn.Status, Result: c.o.Redact(c.lastText), Usage: c.usage,
		ContextTokens: c.context, ContextWindow: c.window, Duration: time.Duration(p.Turn.DurationMs) * time.Millisecond, NumTurns: 1}
	errText := c.turnErr
	c.turn, c.running, c.interruptWanted = "", false, false
	dropped := c.steerDroppedLocked()
	c.mu.Unlock()
	for _, ev := range dropped {
		c.queue.Push(ev)
	}
	if p.Turn.Error != nil && p.Turn.Error.Message != "" {
		errText = p.Turn.Error.Message
	}
	switch p.Turn.Status {
	case "completed":
		tc.Outcome = engine.OutcomeDone
	case "interrupted":
		tc.Outcome = engine.OutcomeCancelled
	default:
		tc.Outcome = engine.OutcomeFailed
		tc.ErrorText = c.o.Redact(errText)
	}
	tc.OK = tc.Outcome == engine.OutcomeDone
	c.queue.Push(tc)
}
