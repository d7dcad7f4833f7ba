package engine

import "testing"

// What a held process was started with against what the config asks now:
// only what lets it do more unasked counts; no record counts as less safe.
func TestStartedLessSafeThan(t *testing.T) {
	for _, c := range []struct {
		name    string
		started *Started
		now     Started
		less    bool
	}{
		{"no record", nil, Started{ProjectConfig: true, SkipPermissions: true}, true},
		{"the same", &Started{AllowedTools: []string{"Read"}}, Started{AllowedTools: []string{"Read"}}, false},
		{"project config, now not", &Started{ProjectConfig: true}, Started{}, true},
		{"project config trusted now", &Started{}, Started{ProjectConfig: true}, false},
		{"skip permissions, now not", &Started{SkipPermissions: true}, Started{}, true},
		{"a tool more", &Started{AllowedTools: []string{"Bash", "Read"}}, Started{AllowedTools: []string{"Read"}}, true},
		{"a tool fewer", &Started{AllowedTools: []string{"Read"}}, Started{AllowedTools: []string{"Read", "Bash"}}, false},
		{"a directory more", &Started{AddDirs: []string{"/x"}}, Started{}, true},
	} {
		if why := c.started.LessSafeThan(c.now); (why != "") != c.less {
			t.Errorf("%s: %q, want less safe: %v", c.name, why, c.less)
		}
	}
}
