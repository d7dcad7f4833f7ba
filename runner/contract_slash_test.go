package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

// TestContractSlashCommands pins down what the CLI does with a stream-json
// user line that is a slash command (docs/protocol.md, "Slash commands"):
// custom commands, skills, /init and unknown commands become a normal turn
// with the model; /context and /compact run locally (a result with
// num_turns 0); /clear starts a new session in the same process.
func TestContractSlashCommands(t *testing.T) {
	r := newRig(t, true).serve()
	for path, text := range map[string]string{
		".claude/commands/hello.md":     "---\ndescription: Say hello to someone\n---\nSay hello to $ARGUMENTS politely.\n",
		".claude/skills/greet/SKILL.md": "---\nname: greet\ndescription: Greets the user warmly\n---\nGreet the user warmly.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(r.path(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(r.path(path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := r.start()
	first := turn(t, s, "hello there", nil).done
	lastTexts := func() string {
		reqs := r.api.Requests()
		return strings.Join(reqs[len(reqs)-1].UserTexts(), "\n")
	}

	// A custom command: the model gets the command's tags and its body,
	// $ARGUMENTS filled in.
	if done := turn(t, s, "/hello Bob", nil).done; !done.OK || done.NumTurns != 1 {
		t.Errorf("/hello: %+v", done)
	}
	if got := lastTexts(); !strings.Contains(got, "<command-name>/hello</command-name>") || !strings.Contains(got, "<command-args>Bob</command-args>") ||
		!strings.Contains(got, "Say hello to Bob politely.") {
		t.Errorf("/hello reached the model as:\n%s", got)
	}
	// A skill: its folder and body.
	turn(t, s, "/greet", nil)
	if got := lastTexts(); !strings.Contains(got, "<command-name>/greet</command-name>") || !strings.Contains(got, "Base directory for this skill: ") ||
		!strings.Contains(got, "Greet the user warmly.") {
		t.Errorf("/greet reached the model as:\n%s", got)
	}
	// An unknown command: the model gets it as text, with a note that no
	// such command exists.
	turn(t, s, "/nosuchcmd x", nil)
	if got := lastTexts(); !strings.Contains(got, "no command with that name is available") || !strings.Contains(got, "/nosuchcmd x") {
		t.Errorf("/nosuchcmd reached the model as:\n%s", got)
	}
	// /init: the built-in prompt to write CLAUDE.md.
	turn(t, s, "/init", nil)
	if got := lastTexts(); !strings.Contains(got, "<command-name>/init</command-name>") || !strings.Contains(got, "create a CLAUDE.md file") {
		t.Errorf("/init reached the model as:\n%s", got)
	}

	// /context runs in the CLI: no model call, its report is the result.
	calls := len(r.api.Requests())
	ctxTurn := turn(t, s, "/context", nil)
	if d := ctxTurn.done; !d.OK || d.NumTurns != 0 || !strings.Contains(d.Result, "Context Usage") || len(r.api.Requests()) != calls {
		t.Errorf("/context: %+v (model calls %d → %d)", d, calls, len(r.api.Requests()))
	}

	// /compact summarises with one model call (retried once, measured: two
	// requests), reports compaction and ends with an empty result.
	compact := turn(t, s, "/compact", nil)
	cs := eventsOf[engine.Compacted](compact.events)
	if d := compact.done; !d.OK || d.NumTurns != 0 || d.Result != "" || len(cs) != 1 || cs[0].Trigger != "manual" || cs[0].PreTokens == 0 {
		t.Errorf("/compact: %+v compacted %+v%s", d, cs, compact)
	}
	if compact.done.SessionID != first.SessionID {
		t.Errorf("/compact changed the session: %s → %s", first.SessionID, compact.done.SessionID)
	}

	// /clear: no model call, a new session id in the same process, and the
	// next turn starts from nothing.
	calls = len(r.api.Requests())
	clear := turn(t, s, "/clear", nil).done
	if !clear.OK || clear.NumTurns != 0 || clear.SessionID == "" || clear.SessionID == first.SessionID || len(r.api.Requests()) != calls {
		t.Errorf("/clear: %+v (was %s)", clear, first.SessionID)
	}
	after := turn(t, s, "after clear", nil).done
	if after.SessionID != clear.SessionID || strings.Contains(lastTexts(), "hello there") {
		t.Errorf("after /clear: session %s, model saw:\n%s", after.SessionID, lastTexts())
	}
}
