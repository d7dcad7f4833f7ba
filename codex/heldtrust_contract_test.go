package codex_test

import (
	"encoding/json"
	"testing"

	"github.com/untether/untether/engine"
)

// A held app-server keeps what its thread was opened with for its life:
// a re-attached one is past thread/start and thread/resume, so the
// project's .codex/config.toml it loaded (project_config = true then, or
// a bot before the untrusted override) stays live, its MCP servers
// running, its shell_environment_policy set for every command. A bot
// that re-attaches under a config asking for more safety must learn that
// it runs less safe than asked (engine.LessSafe), so that it serves no
// new turn; a handle without the record was written by a bot before it
// and counts as less safe. The record goes on with the process across a
// second re-attach.
func TestHeldTellsAProcessStartedLessSafe(t *testing.T) {
	for _, c := range []struct {
		name         string
		started, now bool // ProjectConfig
		oldHandle    bool
		wantLessSafe bool
	}{
		{name: "project config loaded, now not", started: true, wantLessSafe: true},
		{name: "project untrusted, as now"},
		{name: "untrusted, now loaded", now: true},
		{name: "loaded, as now", started: true, now: true},
		{name: "no record (an older bot)", oldHandle: true, wantLessSafe: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := heldRig(t)
			r.eng.Base.ProjectConfig = c.started
			conn := r.start(t, "")
			if why := lessSafeOf(conn); why != "" {
				t.Errorf("a process this bot started is less safe than its own config: %q", why)
			}
			handle, _ := detach(t, conn)
			if c.oldHandle {
				handle = withoutStarted(t, handle)
			}
			r.eng.Base.ProjectConfig = c.now
			again := r.reattach(t, handle, 0)
			why := lessSafeOf(again)
			if got := why != ""; got != c.wantLessSafe {
				t.Errorf("re-attached: less safe %q, want less safe: %v", why, c.wantLessSafe)
			}
			handle, _ = detach(t, again)
			why2 := lessSafeOf(r.reattach(t, handle, 0))
			if got := why2 != ""; got != c.wantLessSafe {
				t.Errorf("re-attached a second time: less safe %q, want less safe: %v", why2, c.wantLessSafe)
			}
		})
	}
}

// lessSafeOf is what conn says of how its process was started, as the
// core reads it: a Conn that says nothing counts as started as the config
// says ("").
func lessSafeOf(conn engine.Conn) string {
	if l, ok := conn.(engine.LessSafe); ok {
		return l.LessSafe()
	}
	return ""
}

// withoutStarted is handle as a bot before the record wrote it.
func withoutStarted(t *testing.T, handle string) string {
	t.Helper()
	var h map[string]json.RawMessage
	if err := json.Unmarshal([]byte(handle), &h); err != nil {
		t.Fatal(err)
	}
	delete(h, "started")
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
