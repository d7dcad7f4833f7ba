// Package toolkinds turns a Claude Code tool call into a kind of action and a
// short, human title for progress messages. It is pure and safe for any input.
package toolkinds

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind groups tool calls by what they mean to the person watching.
type Kind string

const (
	Command    Kind = "command"
	FileChange Kind = "file_change"
	Tool       Kind = "tool"
	WebSearch  Kind = "web_search"
	Note       Kind = "note"
	Subagent   Kind = "subagent"
)

// MaxTitle is the longest title, in runes, that Describe returns.
const MaxTitle = 80

// Describe maps a tool name and its raw JSON input to a kind and a title.
// workDir, when set, makes file paths relative to it.
func Describe(tool string, input json.RawMessage, workDir string) (Kind, string) {
	var in map[string]any
	if len(input) > 0 {
		_ = json.Unmarshal(input, &in) // wrong shapes just leave in nil
	}
	kind, title := describe(tool, in, workDir)
	title = oneLine(title)
	if title == "" {
		title = oneLine(tool)
	}
	return kind, Truncate(title, MaxTitle)
}

func describe(tool string, in map[string]any, workDir string) (Kind, string) {
	switch tool {
	case "Bash", "BashOutput", "KillShell", "KillBash":
		if c := str(in, "command"); c != "" {
			return Command, c
		}
		if id := first(in, "bash_id", "shell_id"); id != "" {
			return Command, strings.ToLower(tool) + " " + id
		}
		return Command, tool
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return FileChange, RelPath(first(in, "file_path", "notebook_path", "path"), workDir)
	case "Read":
		if p := RelPath(first(in, "file_path", "path"), workDir); p != "" {
			return Tool, "read " + p
		}
		return Tool, "read"
	case "Glob", "Grep":
		return Tool, str(in, "pattern")
	case "WebSearch":
		return WebSearch, str(in, "query")
	case "WebFetch":
		return WebSearch, str(in, "url")
	case "TodoWrite", "TodoRead":
		return Note, todoTitle(in)
	case "AskUserQuestion":
		return Note, questionTitle(in)
	case "Task", "Agent":
		return Subagent, first(in, "description", "prompt")
	case "mcp__untether__send_file": // the bot's own tool (package filesend); named here, this package imports none
		if p := RelPath(str(in, "path"), workDir); p != "" {
			return Tool, "send " + p
		}
	case "ExitPlanMode":
		if p := firstLine(str(in, "plan")); p != "" {
			return Note, "plan: " + strings.TrimLeft(p, "# ")
		}
		return Note, "plan"
	}
	if rest, ok := strings.CutPrefix(tool, "mcp__"); ok {
		server, name, found := strings.Cut(rest, "__")
		if found {
			return Tool, server + ": " + name
		}
		return Tool, rest
	}
	return Tool, tool
}

func todoTitle(in map[string]any) string {
	todos, _ := in["todos"].([]any)
	if len(todos) == 0 {
		return "todo list"
	}
	done, active := 0, ""
	for _, t := range todos {
		m, _ := t.(map[string]any)
		switch str(m, "status") {
		case "completed":
			done++
		case "in_progress":
			if active == "" {
				active = first(m, "activeForm", "content")
			}
		}
	}
	title := "todo " + strconv.Itoa(done) + "/" + strconv.Itoa(len(todos))
	if active != "" {
		title += ": " + active
	}
	return title
}

func questionTitle(in map[string]any) string {
	qs, _ := in["questions"].([]any)
	if len(qs) > 0 {
		if m, ok := qs[0].(map[string]any); ok {
			if q := str(m, "question"); q != "" {
				return "question: " + q
			}
		}
	}
	return "question"
}

// RelPath shows p relative to workDir when it lies inside it; other paths
// (and relative ones) are returned as they are.
func RelPath(p, workDir string) string {
	if p == "" || workDir == "" || !filepath.IsAbs(p) {
		return p
	}
	rel, err := filepath.Rel(workDir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return rel
}

func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return strings.TrimSpace(s)
}

func first(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// oneLine folds all whitespace runs (newlines included) into single spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Truncate cuts s to at most max runes, ending with "…" when cut. Invalid
// UTF-8 is replaced so the result is always valid.
func Truncate(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if max <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max-1 {
			break
		}
		b.WriteRune(r)
		n++
	}
	b.WriteString("…")
	return b.String()
}
