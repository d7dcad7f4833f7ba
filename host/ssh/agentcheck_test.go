package ssh_test

import (
	"bytes"
	"context"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/untether/untether/host/ssh/sshtest"
)

// plant replaces the agent file there with a script that leaves a mark,
// as whatever runs as the host's user could (Claude there, steered).
func plant(t *testing.T, path, mark string) {
	t.Helper()
	u, err := user.Lookup(sshtest.User)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	tmp := path + ".planted"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\ntouch "+mark+"\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// sameAsSelf says whether the file there is this test binary (the agent).
func sameAsSelf(t *testing.T, path string) bool {
	t.Helper()
	self, _ := os.Executable()
	a, err1 := os.ReadFile(self)
	b, err2 := os.ReadFile(path)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// An agent file replaced there is never run: not by the next bot run
// (the file is named by the build's hash, so its presence proved
// nothing), and not by a process started after it changed under a
// running agent. It is put back instead.
func TestReplacedAgentNotRun(t *testing.T) {
	s := sshtest.Start(t)
	ctx := context.Background()
	h := s.Connect(t)
	path, err := h.AgentPath(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Check(ctx); err != nil {
		t.Fatal(err)
	}
	dir := s.Dir(t, "mark")
	mark := filepath.Join(dir, "ran")

	// Under a running agent session: a process started now.
	plant(t, path, mark)
	out, _, ex := run(t, h, []string{"PATH=/usr/bin:/bin"}, "/bin/sh", "-c", "echo hi")
	if out != "hi\n" || ex.Code != 0 {
		t.Errorf("after the agent was replaced: %q, %v", out, ex)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the planted agent ran for a process start")
	}
	if !sameAsSelf(t, path) {
		t.Error("the agent file was not put back")
	}

	// The next run of the bot.
	plant(t, path, mark)
	h.Close()
	h2 := s.Connect(t)
	if err := h2.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the planted agent ran on the next connection")
	}
	if !sameAsSelf(t, path) {
		t.Error("the agent file was not put back")
	}
}
