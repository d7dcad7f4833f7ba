package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/untether/untether/engine"

	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of the permission mode of a resumed session
// (docs/protocol.md, "Permission mode on resume"): a session made at the
// desk in a permissive mode and resumed the way the bot resumes it still
// asks before a command.

// askingCommand is a Bash command every mode but bypassPermissions asks
// about: acceptEdits lets file commands in the working directory (touch,
// mkdir) run unasked (measured), not a network call.
const askingCommand = "curl -s http://127.0.0.1:9/"

// allowBypass lets the CLI run in bypassPermissions as root, which it
// refuses otherwise ("cannot be used with root/sudo privileges"): CI and
// this machine run the tests as root in a sandbox, which IS_SANDBOX tells.
func (r *rig) allowBypass() {
	if os.Geteuid() == 0 {
		r.opts.Env = append(r.opts.Env, "IS_SANDBOX=1")
	}
}

// deskSession makes a session in mode the way a terminal at the desk
// would, and checks the mode took: its Bash command (touch desk.txt, which
// acceptEdits lets run too) runs unasked.
func deskSession(t *testing.T, r *rig, mode string) string {
	t.Helper()
	s := r.start(func(o *Options) { o.PermissionMode = mode })
	log := turn(t, s, "Run it.", nil) // nil: being asked fails the test
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].PermissionMode != mode {
		t.Fatalf("desk session started as %+v, want mode %s", st, mode)
	}
	if done := eventsOf[engine.ActionCompleted](log.events); len(done) != 1 || !done[0].OK || !exists(r.path("desk.txt")) {
		t.Fatalf("touch desk.txt in %s: %+v%s", mode, done, log)
	}
	id := s.SessionID()
	if err := s.Close(ctxFor(t)); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestContractResumeModeNotKept: sessions made in bypassPermissions and in
// acceptEdits, resumed with the options the bot builds when no mode is
// configured, start in default mode and ask before a Bash command.
func TestContractResumeModeNotKept(t *testing.T) {
	for _, mode := range []string{"bypassPermissions", "acceptEdits"} {
		t.Run(mode, func(t *testing.T) {
			r := newRig(t, true).serve(
				claudetest.Answer(bashUse("touch desk.txt")), claudetest.Say("done at the desk"),
				claudetest.Answer(bashUse(askingCommand)), claudetest.Say("done from the bot"),
			)
			r.allowBypass()
			id := deskSession(t, r, mode)

			bot := r.opts // the bot's options with no mode configured
			if bot.PermissionMode != "" || bot.SkipPermissions {
				t.Fatalf("the rig's options set a mode: %+v", bot)
			}
			s := r.start(func(o *Options) { o.Resume = id })
			var asked []engine.ApprovalRequest
			log := turn(t, s, "Run it again.", func(req engine.ApprovalRequest) {
				asked = append(asked, req)
				if err := s.Deny(ctxFor(t), req.RequestID, "not now", false); err != nil {
					t.Fatal(err)
				}
			})
			st := eventsOf[engine.SessionStarted](log.events)
			if len(st) != 1 || st[0].PermissionMode != engine.DefaultPermissionMode {
				t.Errorf("resumed session started as %+v, want mode %s", st, engine.DefaultPermissionMode)
			}
			if len(asked) != 1 || asked[0].ToolName != "Bash" || inputField(t, asked[0].Input, "command") != askingCommand {
				t.Errorf("asked %+v, want once, before %q%s", asked, askingCommand, log)
			}
		})
	}
}

// TestContractResumeModeSkipPermissionsWins: the owner's
// --dangerously-skip-permissions still runs a resumed acceptEdits session
// in bypassPermissions, unasked.
func TestContractResumeModeSkipPermissionsWins(t *testing.T) {
	r := newRig(t, true).serve(
		claudetest.Answer(bashUse("touch desk.txt")), claudetest.Say("done at the desk"),
		claudetest.Answer(bashUse(askingCommand)), claudetest.Say("done from the bot"),
	)
	r.allowBypass()
	id := deskSession(t, r, "acceptEdits")
	s := r.start(func(o *Options) { o.Resume, o.SkipPermissions = id, true })
	log := turn(t, s, "Run it again.", nil) // nil: being asked fails the test
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].PermissionMode != "bypassPermissions" {
		t.Errorf("resumed with --dangerously-skip-permissions as %+v, want bypassPermissions", st)
	}
}

// TestContractResumeModeWithoutFlag measures the CLI itself, run without
// the runner (which always passes a mode): resumed with no
// --permission-mode, a bypassPermissions session starts in default mode,
// and a one-shot run (no one to ask) does not run the command.
func TestContractResumeModeWithoutFlag(t *testing.T) {
	r := newRig(t, true).serve(
		claudetest.Answer(bashUse("touch desk.txt")), claudetest.Say("done at the desk"),
		claudetest.Answer(bashUse("touch resumed.txt")), claudetest.Say("done without a flag"),
	)
	r.allowBypass()
	id := deskSession(t, r, "bypassPermissions")
	cmd := r.command(ctxFor(t), "-p", "--verbose", "--output-format", "stream-json", "--resume", id, "--", "Run it again.")
	out, err := cmd.Output() // stdin is /dev/null: no wait for input
	if err != nil {
		t.Fatalf("claude --resume without a mode: %v\n%s", err, out)
	}
	mode := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct{ Type, Subtype, PermissionMode string }
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Type == "system" && l.Subtype == "init" {
			mode = l.PermissionMode
		}
	}
	t.Logf("resumed without --permission-mode: %q", mode)
	if mode != "default" {
		t.Errorf("mode %q, want default (docs/protocol.md says the CLI does not keep the mode)", mode)
	}
	if exists(r.path("resumed.txt")) {
		t.Error("the resumed one-shot ran the command unasked: the CLI kept bypassPermissions")
	}
}

// TestContractModeOverridesSettingsDefault: the mode the runner always
// passes wins over a defaultMode in Claude Code's settings, which without
// the flag decides the mode (measured: acceptEdits here).
func TestContractModeOverridesSettingsDefault(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("hello"))
	settings := filepath.Join(r.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"defaultMode":"acceptEdits"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	log := turn(t, r.start(), "Hello.", nil)
	if st := eventsOf[engine.SessionStarted](log.events); len(st) != 1 || st[0].PermissionMode != engine.DefaultPermissionMode {
		t.Errorf("started as %+v, want %s despite the settings' defaultMode", st, engine.DefaultPermissionMode)
	}
}
