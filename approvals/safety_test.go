package approvals

import (
	"path/filepath"
	"testing"
)

// TestSensitiveWritesAsked: with Write, Edit, MultiEdit and NotebookEdit in
// the allow list, a write inside the project to a place where files are run
// or trusted (git hooks, Claude Code's settings and MCP config, shell
// start-up files, npm and git config, ssh) is asked, and not called
// "outside the project"; ordinary writes and reads of those places are
// still allowed. Before, every one of these writes was approved at once:
// .claude/settings.local.json with a hook, or .git/hooks/pre-commit, is
// code the owner never saw running with their rights.
func TestSensitiveWritesAsked(t *testing.T) {
	w := newPathWorld(t)
	writers := []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
	type m = map[string]any
	in := func(p string) m {
		return m{"file_path": p, "notebook_path": p, "content": "x", "old_string": "a", "new_string": "b"}
	}
	for _, p := range []string{
		filepath.Join(w.proj, ".claude", "settings.local.json"), ".claude/settings.json",
		filepath.Join(w.proj, ".git", "hooks", "pre-commit"), ".git/config", ".mcp.json", ".claude.json",
		".bashrc", ".zshrc", ".profile", ".bash_profile", ".npmrc", ".gitconfig", ".ssh/authorized_keys",
	} {
		for _, tool := range writers {
			b, _ := newTestBroker(w.config_(writers))
			sub := mustSubmit(t, b, w.req(tool, in(p)), &fakeResponder{})
			if sub.Auto() {
				t.Errorf("%s %s approved without asking (%s)", tool, p, sub.Reason)
				continue
			}
			if len(sub.Prompt.Outside) != 0 {
				t.Errorf("%s %s: Outside = %q, want none (it is in the project)", tool, p, sub.Prompt.Outside)
			}
		}
		b, _ := newTestBroker(w.config_(DefaultAutoApprove()))
		if sub := mustSubmit(t, b, w.req("Read", m{"file_path": p}), &fakeResponder{}); !sub.Auto() {
			t.Errorf("Read %s asked: reads of these places stay allowed", p)
		}
	}
	b, _ := newTestBroker(w.config_(writers))
	if sub := mustSubmit(t, b, w.req("Write", in("src/new.go")), &fakeResponder{}); !sub.Auto() {
		t.Error("an ordinary write in the project was asked")
	}
}

// TestSafetyCheckAlwaysAsked: a request Claude Code's safety checks flagged
// (decision_reason_type "safetyCheck", or classifier_approvable set on a
// compound command) is shown whatever the allow list, skip-permissions or
// bypass mode say: under skip and bypass the CLI asks only what it wants a
// person to see even then (rm -rf /). Other requests still follow them.
func TestSafetyCheckAlwaysAsked(t *testing.T) {
	w := newPathWorld(t)
	yes := true
	write := w.req("Write", map[string]any{"file_path": "notes.txt", "content": "x"})
	write.DecisionReasonType = "safetyCheck"
	rm := w.req("Bash", map[string]any{"command": "rm -rf /"})
	rm.DecisionReasonType, rm.ClassifierApprovable = "safetyCheck", new(bool)
	compound := w.req("Bash", map[string]any{"command": "ls && echo x > .claude/settings.json"})
	compound.DecisionReasonType, compound.ClassifierApprovable = "subcommandResults", &yes
	plain := w.req("Bash", map[string]any{"command": "rm -rf build"})

	listed := w.config_([]string{"Write", "Bash"})
	skip := w.config_(nil)
	skip.SkipPermissions = true
	for name, c := range map[string]struct {
		cfg  Config
		mode string
	}{"allow list": {listed, "default"}, "skip permissions": {skip, "default"}, "bypass mode": {w.config_(nil), "bypassPermissions"}} {
		for _, req := range []Request{write, rm, compound} {
			b, _ := newTestBroker(c.cfg)
			if sub := mustSubmit(t, b, withMode(req, c.mode, ""), &fakeResponder{}); sub.Auto() {
				t.Errorf("%s: %s %s (%s) answered without asking: %s", name, req.ToolName, req.Input, req.DecisionReasonType, sub.Reason)
			}
		}
		b, _ := newTestBroker(c.cfg)
		if sub := mustSubmit(t, b, withMode(plain, c.mode, ""), &fakeResponder{}); !sub.Auto() {
			t.Errorf("%s: a request without a safety check was asked", name)
		}
	}
}
