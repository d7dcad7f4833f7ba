package ssh_test

import (
	"context"
	"path"
	"testing"

	"github.com/untether/untether/host"
	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/scope"
)

// Every file the bot keeps on a host lies in the folder the host reports
// as its own (host.Keeper): the agent, the MCP configs it puts there, the
// holders' folders, the uploads; so the path rule on that host, with its
// user's home the working directory, calls them private and the rest of
// the home inside. Before, the host reported nothing and they were inside.
func TestHostReportsItsFolderPrivate(t *testing.T) {
	s := sshtest.Start(t)
	h := newHost(t, s)
	ctx := context.Background()
	mcp, err := h.PutPrivate(ctx, "mcp-*.json", []byte(`{"secret":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	agent, err := h.AgentPath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := host.PrivateDirs(ctx, h)
	if err != nil || len(dirs) != 1 || dirs[0] != s.Home+"/.cache/untether" {
		t.Errorf("private dirs %q, %v; want the home's .cache/untether", dirs, err)
	}
	rule := scope.Rule{Host: h, WorkDir: s.Home}
	for _, p := range []string{mcp, agent, path.Dir(agent) + "/hold/abc123/journal", path.Dir(agent) + "/uploads/42/photo.jpg",
		path.Dir(agent)} {
		if v := rule.Check(p); v.Inside || !v.Forbidden {
			t.Errorf("%s: %+v, want private", p, v)
		}
	}
	if v := rule.Check(s.Home + "/notes.txt"); !v.Inside {
		t.Errorf("the rest of the home: %+v, want inside", v)
	}
}
