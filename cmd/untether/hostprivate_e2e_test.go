package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/host/ssh/sshtest"
	"github.com/untether/untether/telegram/tgtest"
)

// A host whose working directory is its user's home holds the folder the
// bot keeps there (~/.cache/untether: journals, MCP configs, the agent)
// where Claude Code reads without asking: the bot says so at start, naming
// the host and the folder, as it does for its own files here. Before, the
// warning looked at this machine's files alone.
func TestStartWarnsOfHostFolderInReach(t *testing.T) {
	s := sshtest.Start(t)
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = fmt.Sprintf("%q", a)
	}
	hostTOML := fmt.Sprintf("[hosts.box]\nssh = %q\nssh_args = [%s]\nworking_dir = %q\n", s.Dest, strings.Join(args, ", "), s.Home)
	e := newE2EOn(t, tgtest.New(t), testExecutable(t), fakeClaudeEnv("echo"), "", hostTOML)
	p := e.start(t)
	want := s.Home + "/.cache/untether"
	deadline := time.Now().Add(60 * time.Second) // far from what a start costs
	for {
		for _, line := range strings.Split(p.out.String(), "\n") {
			if strings.Contains(line, "lies where Claude Code reads without asking") && strings.Contains(line, "host=box") &&
				strings.Contains(line, want) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no warning naming box and %s in the log", want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
