package runner

import (
	"testing"

	"github.com/untether/untether/engine"
)

// Every mode the bot offers has a Claude Code value and comes back as
// itself; the CLI's values as 2.1.330 writes them map to the bot's.
func TestModesMapBothWays(t *testing.T) {
	cli := map[string]string{
		engine.ModeDefault: "default", engine.ModeAcceptEdits: "acceptEdits", engine.ModePlan: "plan",
		engine.ModeBypass: "bypassPermissions", engine.ModeDontAsk: "dontAsk", engine.ModeAuto: "auto",
	}
	if len(cli) != len(engine.Modes) {
		t.Fatalf("engine.Modes = %q, the test knows %d", engine.Modes, len(cli))
	}
	for _, m := range engine.Modes {
		if got := toClaudeMode(m); got != cli[m] {
			t.Errorf("toClaudeMode(%q) = %q, want %q", m, got, cli[m])
		}
		if got := fromClaudeMode(cli[m]); got != m {
			t.Errorf("fromClaudeMode(%q) = %q, want %q", cli[m], got, m)
		}
	}
	init := `{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","model":"claude-opus-5-5","permissionMode":"bypassPermissions","claude_code_version":"2.1.330"}`
	if s, ok := decodeOne(t, newDecoder("/w"), init).(engine.SessionStarted); !ok || s.PermissionMode != engine.ModeBypass {
		t.Errorf("init in bypassPermissions: %+v", s)
	}
}
