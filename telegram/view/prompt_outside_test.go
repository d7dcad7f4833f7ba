package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/approvals"
)

// A request asked because its path is outside the project says so and
// shows the resolved path, once (not again as the CLI's blocked path).
func TestPromptOutsideProject(t *testing.T) {
	const target = "/home/user/.ssh/id_ed25519"
	// As the real CLI sends a Read through a link in the project.
	req := approvals.Request{RequestID: "r", ToolName: "Read", Input: json.RawMessage(`{"file_path":"/home/user/project/key"}`),
		BlockedPath: target, Description: "key", ChatID: chatID, SessionKey: "42"}
	p := &approvals.Prompt{Kind: approvals.KindTool, Request: req, Outside: []string{target}}
	text := PromptText(p, workDir, time.Time{})[0]
	want := "⚠️ Outside the project: <code>" + target + "</code>"
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q:\n%s", want, text)
	}
	if strings.Count(text, target) != 1 {
		t.Errorf("the resolved path is shown %d times, want once:\n%s", strings.Count(text, target), text)
	}
	if !strings.Contains(text, "read</b> <code>key</code>") {
		t.Errorf("the headline does not name the file as requested:\n%s", text)
	}

	p.Outside = []string{target, "/etc"}
	if text := PromptText(p, workDir, time.Time{})[0]; !strings.Contains(text, want+" (and 1 more)") {
		t.Errorf("two outside paths:\n%s", text)
	}
	p.Outside = nil
	if text := PromptText(p, workDir, time.Time{})[0]; strings.Contains(text, "Outside") {
		t.Errorf("a prompt with nothing outside says outside:\n%s", text)
	}
}
