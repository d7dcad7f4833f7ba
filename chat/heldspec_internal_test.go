package chat

import (
	"slices"
	"testing"

	"github.com/untether/untether/engine"
	"github.com/untether/untether/filesend"
	"github.com/untether/untether/prefs"
)

// A held process re-attaches with the spec a start would give it. Found by
// review: a record whose send_file grant had not come back once (Grant "")
// re-attached without the tool, so a process started with it allowed
// looked started less safe at the next restart and was ended for nothing.
func TestHeldSpecAllowsTheBotsOwnTool(t *testing.T) {
	for _, grant := range []string{"g1", ""} {
		rec := prefs.HeldSession{Key: "k", WorkDir: "/p", Grant: grant}
		spec := heldSpec(rec, Settings{Model: "m", PermissionMode: "default", Stream: StreamOff})
		if !slices.Contains(spec.AllowedTools, filesend.AllowedTool) {
			t.Errorf("grant %q: allowed tools %v lack %s", grant, spec.AllowedTools, filesend.AllowedTool)
		}
		// A process started with the tool (every start with a grant) is
		// not less safe than this spec.
		started := &engine.Started{AllowedTools: []string{filesend.AllowedTool}}
		if why := started.LessSafeThan(engine.Started{AllowedTools: spec.AllowedTools}); why != "" {
			t.Errorf("grant %q: %s", grant, why)
		}
		if spec.WorkDir != "/p" || spec.Model != "m" || spec.Partial {
			t.Errorf("spec = %+v", spec)
		}
	}
}
