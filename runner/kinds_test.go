package runner

import (
	"testing"

	"github.com/untether/untether/engine"
)

// Each of Claude Code's tools asks as the kind approvals decides on; a
// tool this version does not know is any other tool.
func TestRequestKind(t *testing.T) {
	for tool, want := range map[string]engine.RequestKind{
		"Bash": engine.RequestCommand, "Edit": engine.RequestFileChange, "Write": engine.RequestFileChange,
		"MultiEdit": engine.RequestFileChange, "NotebookEdit": engine.RequestFileChange,
		"AskUserQuestion": engine.RequestQuestion, "ExitPlanMode": engine.RequestPlan,
		"Read": engine.RequestTool, "WebFetch": engine.RequestTool, "mcp__untether__send_file": engine.RequestTool,
		"SomethingNew": engine.RequestTool,
	} {
		if got := requestKind(tool); got != want {
			t.Errorf("requestKind(%q) = %q, want %q", tool, got, want)
		}
	}
}

// A can_use_tool line as the CLI writes it carries its kind.
func TestDecodeApprovalKind(t *testing.T) {
	for tool, want := range map[string]engine.RequestKind{"Bash": engine.RequestCommand, "ExitPlanMode": engine.RequestPlan, "AskUserQuestion": engine.RequestQuestion} {
		line := `{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"` + tool + `","input":{},"tool_use_id":"toolu_1"}}`
		out, err := newDecoder("/w").decode([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if len(out.events) != 1 {
			t.Fatalf("%s: events %+v", tool, out.events)
		}
		if r, ok := out.events[0].(engine.ApprovalRequest); !ok || r.Kind != want || r.ToolName != tool {
			t.Errorf("%s: %+v, want kind %q", tool, out.events[0], want)
		}
	}
}
