package codex_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/codex"
	"github.com/untether/untether/engine"
	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// What a held Codex's handle says of how its thread was opened decides,
// on re-attach, whether it serves new turns (engine.LessSafe), without
// the real CLI: a holder holds cat (a re-attach writes nothing to Codex
// until a turn), under handles as a bot writes them. A thread opened with
// the project's config loaded is less safe than a config that no longer
// loads it; a handle without the record (a bot before it) is too; the
// record goes on in the re-attached Conn's handle, so a bot after this
// one knows it as well.
func TestReattachReadsHowTheThreadWasOpened(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.MkdirTemp("", "cx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	place := hold.Placement{Self: exe, Root: filepath.Join(root, "hold"), Orphan: time.Minute}
	for _, c := range []struct {
		name         string
		started      string // the handle's "started", "" for none
		now          bool   // ProjectConfig
		wantLessSafe bool
	}{
		{name: "project config loaded, now not", started: `{"project_settings":true}`, wantLessSafe: true},
		{name: "loaded, as now", started: `{"project_settings":true}`, now: true},
		{name: "untrusted, as now", started: `{"project_settings":false}`},
		{name: "untrusted, now loaded", started: `{"project_settings":false}`, now: true},
		{name: "no record (an older bot)", wantLessSafe: true},
		{name: "no record, loaded now too", now: true, wantLessSafe: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			h, err := hold.Spawn(t.Context(), host.Local{}, exe, place.Root, hold.Config{Path: "/bin/cat", WorkDir: dir,
				Env: []string{"PATH=/usr/bin:/bin"}, Orphan: place.Orphan})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(h.Holder, syscall.SIGKILL) })
			hj, _ := json.Marshal(h)
			handle := `{"hold":` + string(hj) + `,"thread":"th","cwd":"` + dir + `"`
			if c.started != "" {
				handle += `,"started":` + c.started
			}
			handle += `}`
			eng := &codex.Engine{Base: codex.Options{WorkDir: dir, ProjectConfig: c.now, Hold: &codex.Hold{Placement: place}}}
			conn, err := eng.Reattach(context.Background(), engine.Spec{}, handle, 0)
			if err != nil {
				t.Fatalf("reattach: %v", err)
			}
			t.Cleanup(func() { _ = conn.Close(context.Background()) })
			why := lessSafeOf(conn)
			if got := why != ""; got != c.wantLessSafe {
				t.Errorf("re-attached: less safe %q, want less safe: %v", why, c.wantLessSafe)
			}
			var again struct {
				Started json.RawMessage `json:"started"`
			}
			if err := json.Unmarshal([]byte(conn.(engine.Held).Handle()), &again); err != nil {
				t.Fatal(err)
			}
			if want := c.started; !sameStarted(t, again.Started, want) {
				t.Errorf("the re-attached Conn's handle says started %s, want %q (the original record)", again.Started, want)
			}
		})
	}
}

// sameStarted says whether got records what the JSON want does ("":
// absent).
func sameStarted(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	if want == "" {
		return len(got) == 0
	}
	var g, w struct {
		ProjectConfig *bool `json:"project_settings"`
	}
	if err := json.Unmarshal(got, &g); err != nil || g.ProjectConfig == nil {
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	return *g.ProjectConfig == *w.ProjectConfig
}
