package codex_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/engine"
)

// plantedProject makes the rig's directory the subfolder "sub" of a git
// repository whose .codex/config.toml names an MCP server that records
// its start in a file and sets PLANTED_VAR for every command, as a cloned
// repository could. The owner's own config.toml gets an MCP server of its
// own (which must keep starting) and, as the bot's threads before the fix
// left it, trust_level = "trusted" for the repository. It returns the
// planted server's and the owner's server's marker files.
func plantedProject(t *testing.T, r *rig) (planted, owners string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(root, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	marks := t.TempDir()
	planted, owners = filepath.Join(marks, "planted"), filepath.Join(marks, "owners")
	server := func(name, marker string) string {
		return fmt.Sprintf("[mcp_servers.%s]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo ran >> %s\"]\n", name, marker)
	}
	project := server("planted", planted) + "\n[shell_environment_policy]\nset = { PLANTED_VAR = \"planted-value\" }\n"
	if err := os.MkdirAll(filepath.Join(root, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".codex", "config.toml"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(r.home, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(f, "\n%s\n[projects.%q]\ntrust_level = \"trusted\"\n", server("owners", owners), root)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	r.dir, r.eng.Base.WorkDir = sub, sub
	return planted, owners
}

// projectTurn starts (or resumes) a thread, runs an approved command that
// prints PLANTED_VAR, waits until the owner's MCP server has started and
// closes the session. It returns the thread's id and the command's output
// as the model got it.
func projectTurn(t *testing.T, r *rig, resume, owners string) (string, string) {
	t.Helper()
	c := r.start(t, resume)
	send(t, c, "run: echo VAR=$PLANTED_VAR.")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
		t.Fatal(err)
	}
	if tc := next[engine.TurnCompleted](t, c, &seen); tc.Outcome != engine.OutcomeDone {
		t.Fatalf("turn = %+v", tc)
	}
	// The servers start together with the thread: once the owner's has,
	// the planted one would have too.
	for deadline := time.Now().Add(hang); !exists(owners); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the owner's own MCP server never started")
		}
	}
	id := c.SessionID()
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	reqs := r.api.Requests()
	out, _ := reqs[len(reqs)-1].CallOutput()
	return id, out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// A project's own .codex/config.toml runs no program and sets nothing,
// on a new thread and on a resumed one, also when the owner's config.toml
// says the repository is trusted and the bot runs in a subfolder of it;
// the owner's own MCP servers still start. Before the fix the planted
// server started on every thread and the command printed the planted
// value (docs/security.md "Trust, fifth pass").
func TestProjectConfigLoadsNothing(t *testing.T) {
	r := newRig(t, nil)
	planted, owners := plantedProject(t, r)
	id, out := projectTurn(t, r, "", owners)
	if strings.Contains(out, "planted-value") || !strings.Contains(out, "VAR=.") {
		t.Errorf("new thread: the command printed %q", out)
	}
	if exists(planted) {
		t.Error("new thread: the project's MCP server started")
	}
	if err := os.Remove(owners); err != nil {
		t.Fatal(err)
	}
	_, out = projectTurn(t, r, id, owners)
	if strings.Contains(out, "planted-value") || !strings.Contains(out, "VAR=.") {
		t.Errorf("resumed thread: the command printed %q", out)
	}
	if exists(planted) {
		t.Error("resumed thread: the project's MCP server started")
	}
	// Nothing of the bot's is written into the owner's config.toml.
	b, err := os.ReadFile(filepath.Join(r.home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "untrusted") {
		t.Errorf("the owner's config.toml was changed:\n%s", b)
	}
}

// With Options.ProjectConfig the project's file loads, as Codex's own
// default: the opt-in gives back what the owner asked for.
func TestProjectConfigOptIn(t *testing.T) {
	r := newRig(t, nil)
	planted, owners := plantedProject(t, r)
	r.eng.Base.ProjectConfig = true
	_, out := projectTurn(t, r, "", owners)
	if !strings.Contains(out, "VAR=planted-value.") || !exists(planted) {
		t.Errorf("with ProjectConfig: output %q, planted server started %v", out, exists(planted))
	}
}
