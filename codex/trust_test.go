package codex

import (
	"testing"

	"github.com/untether/untether/host"
)

// remoteHost is a host that is not this machine.
type remoteHost struct{ host.Host }

// Every thread names its directory and each folder above it untrusted,
// unless the owner opted in; another machine's path is taken as written.
func TestThreadConfigUntrustsTheProject(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"local", Options{WorkDir: "/nonexistent-untether/a/b/"}, []string{"/nonexistent-untether/a/b", "/nonexistent-untether/a", "/nonexistent-untether", "/"}},
		{"remote", Options{WorkDir: "/srv/p", Host: remoteHost{}}, []string{"/srv/p", "/srv", "/"}},
	} {
		p, _ := threadConfig(tc.o)["projects"].(map[string]any)
		if len(p) != len(tc.want) {
			t.Errorf("%s: projects = %v", tc.name, p)
		}
		for _, d := range tc.want {
			if e, _ := p[d].(map[string]any); e["trust_level"] != "untrusted" {
				t.Errorf("%s: %s is %v", tc.name, d, p[d])
			}
		}
		tc.o.ProjectConfig = true
		if cfg := threadConfig(tc.o); cfg["projects"] != nil || cfg["features"] == nil {
			t.Errorf("%s with ProjectConfig: config = %v", tc.name, cfg)
		}
	}
}
