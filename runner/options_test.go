package runner

import (
	"slices"
	"testing"

	"github.com/untether/untether/engine"
)

// TestArgsAlwaysSayThePermissionMode: every start and resume, interactive
// or one-shot, names its permission mode, "default" when none is set, so a
// resumed session never runs in the mode it had at the desk. The owner's
// --dangerously-skip-permissions keeps working as before.
func TestArgsAlwaysSayThePermissionMode(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		want []string // the --permission-mode values passed
		skip bool     // --dangerously-skip-permissions passed
	}{
		{"resume, no mode", Options{Mode: Interactive, Resume: "desk-1"}, []string{"default"}, false},
		{"new, no mode", Options{Mode: Interactive}, []string{"default"}, false},
		{"one-shot resume, no mode", Options{Mode: OneShot, Resume: "desk-1"}, []string{"default"}, false},
		{"configured mode", Options{Mode: Interactive, Resume: "desk-1", PermissionMode: "acceptEdits"}, []string{"acceptEdits"}, false},
		{"skip permissions", Options{Mode: Interactive, Resume: "desk-1", SkipPermissions: true}, nil, true},
		{"skip permissions and a mode", Options{Mode: OneShot, PermissionMode: "plan", SkipPermissions: true}, []string{"plan"}, true},
	} {
		args, err := c.opts.args("hi")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var modes []string
		skip := false
		for i, a := range args {
			if a == "--" {
				break // the one-shot prompt follows
			}
			switch a {
			case "--permission-mode":
				if i+1 < len(args) {
					modes = append(modes, args[i+1])
				}
			case "--dangerously-skip-permissions":
				skip = true
			}
		}
		if !slices.Equal(modes, c.want) || skip != c.skip {
			t.Errorf("%s: modes %q skip %v, want %q %v (args %q)", c.name, modes, skip, c.want, c.skip, args)
		}
	}
}

// TestUncappedSpecDropsTheTurnCap: a session started for a Run anyway past
// max_turn_usd gets no --max-budget-usd; every other start keeps it.
func TestUncappedSpecDropsTheTurnCap(t *testing.T) {
	e := &Engine{Base: Options{Mode: Interactive, MaxBudgetUSD: 0.5}}
	for _, c := range []struct {
		spec engine.Spec
		want bool
	}{{engine.Spec{}, true}, {engine.Spec{Resume: "s-1"}, true}, {engine.Spec{Resume: "s-1", Uncapped: true}, false}} {
		args, err := e.options(c.spec).args("")
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(args, "--max-budget-usd"); got != c.want {
			t.Errorf("spec %+v: --max-budget-usd passed = %v, want %v (%q)", c.spec, got, c.want, args)
		}
	}
}
