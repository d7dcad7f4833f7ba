package view

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/approvals"
	"github.com/untether/untether/telegram/render"
)

const nastyUnit = "<script>alert(\"x\")</script> & 😀 "

func nastyPrompt(tool string, input any, longExtras bool) *approvals.Prompt {
	raw, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	p := &approvals.Prompt{Kind: approvals.KindTool,
		Request: approvals.Request{ToolName: tool, Input: raw},
		Actions: []approvals.Action{{Kind: approvals.ActionApprove, Token: "a"}, {Kind: approvals.ActionDeny, Token: "d"}},
	}
	p.Deadline = time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC)
	if longExtras {
		long := strings.Repeat(nastyUnit, 300)
		p.Request.Description = long
		p.Request.BlockedPath = "/" + long
		for range 40 {
			p.AlwaysAllow = append(p.AlwaysAllow, long)
		}
		p.Actions = append(p.Actions, approvals.Action{Kind: approvals.ActionAlways, Token: "w"})
	}
	return p
}

func TestPromptNastyInputs(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	long := strings.Repeat(nastyUnit, 400) // about 10,000 characters
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("line %d: %s", i, nastyUnit))
	}
	file := strings.Join(lines, "\n")
	cases := map[string]*approvals.Prompt{
		"bash 10k":         nastyPrompt("Bash", map[string]any{"command": long, "description": long}, false),
		"bash amp":         nastyPrompt("Bash", map[string]any{"command": strings.Repeat("&", 10000)}, false),
		"write 2000 lines": nastyPrompt("Write", map[string]any{"file_path": "/" + long, "content": file}, false),
		"edit huge":        nastyPrompt("Edit", map[string]any{"file_path": "/x", "old_string": file, "new_string": long}, false),
		"multiedit many": nastyPrompt("MultiEdit", map[string]any{"file_path": "/x", "edits": []map[string]string{
			{"old_string": file, "new_string": file + "x"}, {"old_string": "a", "new_string": "b"}}}, false),
		"mcp wide":       nastyPrompt("mcp__"+long+"__"+long, map[string]any{"a": long, "b": []string{long}, "c": map[string]string{long: long}}, false),
		"many args":      nastyPrompt("Custom", manyArgs(50, long), false),
		"extras":         nastyPrompt("Bash", map[string]any{"command": long}, true),
		"write extras":   nastyPrompt("Write", map[string]any{"file_path": "/" + long, "content": file}, true),
		"control chars":  nastyPrompt("Bash", map[string]any{"command": "echo \x00\x01\x1b[31mred\r\nnext\x7f \xff\xfe"}, false),
		"not an object":  {Kind: approvals.KindTool, Request: approvals.Request{ToolName: "Bash", Input: json.RawMessage(`[1,2]`)}},
		"broken json":    {Kind: approvals.KindTool, Request: approvals.Request{ToolName: "WebFetch", Input: json.RawMessage(`{"url": "ht`)}},
		"no tool name":   {Kind: approvals.KindTool},
		"plan nasty":     {Kind: approvals.KindPlan, Plan: long + "\n\n" + file, PlanFile: long, Deadline: now.Add(time.Minute)},
		"question empty": {Kind: approvals.KindQuestion},
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			parts := PromptText(p, "/", now)
			checkParts(t, name, parts)
			if p.Kind == approvals.KindTool && len(parts) != 1 {
				t.Errorf("tool prompt in %d parts", len(parts))
			}
			joined := strings.Join(parts, "")
			if strings.Contains(joined, "<script>") {
				t.Error("unescaped input")
			}
			if p.Kind == approvals.KindTool && !p.Deadline.IsZero() && !strings.Contains(joined, "Answer within 10 min") {
				t.Errorf("the deadline was pushed out:\n%s", joined)
			}
			checkKeyboard(t, name, PromptKeyboard(p, "a:"))
		})
	}
}

func manyArgs(n int, v string) map[string]any {
	m := map[string]any{}
	for i := range n {
		m[fmt.Sprintf("arg%02d", i)] = v
	}
	return m
}

// TestWritePreviewShowsFirstLines pins what the Write preview promises: the
// first 15 lines and a count of the rest.
func TestWritePreviewShowsFirstLines(t *testing.T) {
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	p := nastyPrompt("Write", map[string]any{"file_path": "/w/a.txt", "content": strings.Join(lines, "\n") + "\n"}, false)
	text := PromptText(p, "/w", time.Time{})[0]
	visible := render.VisibleText(text)
	if !strings.Contains(visible, "line 0\nline 1\n") || !strings.Contains(visible, "line 14\n… 1985 more lines") || strings.Contains(visible, "line 15\n") {
		t.Errorf("write preview:\n%s", visible)
	}
	if !strings.Contains(text, "<code>a.txt</code> · 2000 lines") {
		t.Errorf("write headline:\n%s", text)
	}
}

func TestDiffLines(t *testing.T) {
	many := func(prefix string, n int) string {
		var l []string
		for i := range n {
			l = append(l, fmt.Sprintf("%s%d", prefix, i))
		}
		return strings.Join(l, "\n")
	}
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"simple", "beta", "gamma", []string{"- beta", "+ gamma"}},
		{"context kept", "a\nb\nc", "a\nB\nc", []string{"  a", "- b", "+ B", "  c"}},
		{"insert", "", "x\ny", []string{"+ x", "+ y"}},
		{"delete", "x", "", []string{"- x"}},
		{"same", "x", "x", []string{"(no change)"}},
		{"fair split", many("o", 20), many("n", 20), append(append(strings.Split(prefixed("- ", many("o", 6)), "\n"), "- … 14 more lines"),
			append(strings.Split(prefixed("+ ", many("n", 6)), "\n"), "+ … 14 more lines")...)},
		{"short side gives room", "o", many("n", 20), append([]string{"- o"}, append(strings.Split(prefixed("+ ", many("n", 11)), "\n"), "+ … 9 more lines")...)},
	} {
		got, all := diffLines(c.old, c.new, 12)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if wantAll := !strings.Contains(strings.Join(c.want, "|"), "more lines"); all != wantAll {
			t.Errorf("%s: all = %v, want %v", c.name, all, wantAll)
		}
	}
}

func prefixed(p, s string) string { return p + strings.ReplaceAll(s, "\n", "\n"+p) }

func TestEscCutters(t *testing.T) {
	for _, s := range []string{"", "plain", strings.Repeat("&<>\"😀é", 100), "a\nb\nc\n" + strings.Repeat("x", 50)} {
		for budget := 0; budget < 60; budget++ {
			h, tl := escHead(s, budget), escTail(s, budget)
			if units(h) > budget || units(tl) > budget {
				t.Fatalf("budget %d: head %d, tail %d units", budget, units(h), units(tl))
			}
			for _, x := range []string{h, tl} {
				if err := render.Validate(x); err != nil {
					t.Fatalf("budget %d: %v in %q", budget, err, x)
				}
			}
			full := render.Escape(s)
			if units(full) <= budget && (h != full || tl != full) {
				t.Fatalf("budget %d: %q fits but was cut", budget, s)
			}
			if h != full && !strings.HasPrefix(render.VisibleText(full), strings.TrimSuffix(render.VisibleText(h), ellipsis)) {
				t.Fatalf("head %q is not a prefix", h)
			}
			if tl != full && !strings.HasSuffix(s, strings.TrimPrefix(render.VisibleText(tl), ellipsis+"\n")) {
				t.Fatalf("tail %q is not a suffix", tl)
			}
		}
	}
}

func TestPromptWithoutFile(t *testing.T) {
	p := nastyPrompt("Edit", map[string]any{"old_string": "a", "new_string": "b"}, false)
	text := PromptText(p, "/w", time.Time{})[0]
	checkHTML(t, "no file", text)
	if !strings.Contains(text, "edit</b> a file") || strings.Contains(text, "<code></code>") {
		t.Errorf("edit without a file:\n%s", text)
	}
}
