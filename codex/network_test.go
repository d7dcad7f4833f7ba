package codex_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/untether/untether/engine"
)

// TestNoConnectionLeavesLoopback runs Codex under strace and reads every
// connect(2) it and its children make, through a prompt and an approved
// command: with codextest's config, only the fake on 127.0.0.1 may be
// reached — no DNS server (a name looked up), no nscd, nothing else.
// strace sees what a proxy variable would not (a client that ignores it,
// a lookup). Without codextest's switches, 0.171.0 looks up github.com
// and api.github.com and this test fails (measured).
func TestNoConnectionLeavesLoopback(t *testing.T) {
	r := newRig(t, nil)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not on PATH (.ci/run installs it)")
	}
	log := filepath.Join(t.TempDir(), "connect.log")
	wrapper := filepath.Join(t.TempDir(), "codex-traced")
	script := fmt.Sprintf("#!/bin/sh\nexec %q -f -qq -e trace=connect -o %q %q \"$@\"\n", strace, log, r.eng.Base.Binary)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r.eng.Base.Binary = wrapper
	c := r.start(t, "")
	send(t, c, "run: echo hi")
	var seen []engine.Event
	req := next[engine.ApprovalRequest](t, c, &seen)
	if err := c.Allow(context.Background(), req.RequestID, nil, nil); err != nil {
		t.Fatal(err)
	}
	if tc := next[engine.TurnCompleted](t, c, &seen); tc.Outcome != engine.OutcomeDone {
		t.Fatalf("turn = %+v", tc)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	loopback := regexp.MustCompile(`inet_addr\("127\.0\.0\.1"\)|inet_pton\(AF_INET6, "::1"`)
	connects := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "connect(") || strings.Contains(line, "resumed>") {
			continue
		}
		connects++
		switch {
		case strings.Contains(line, "AF_UNIX") && !strings.Contains(line, "nscd"):
		case (strings.Contains(line, "AF_INET")) && loopback.MatchString(line):
		default:
			t.Errorf("connection off loopback: %s", line)
		}
	}
	if connects == 0 {
		t.Errorf("strace saw no connect at all (not even to the fake):\n%s", b)
	}
}
