package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/untether/untether/host/ssh/sshtest"
)

// doctor checks each host: reached (host key known), the CLI there, the
// directories there; each failure says what to do.
func TestDoctorHosts(t *testing.T) {
	t.Setenv(envBotToken, "")
	s := sshtest.Start(t)
	work := s.Dir(t, "work")
	fake := filepath.Join(work, "claude")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho '7.7.7 (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = fmt.Sprintf("%q", a)
	}
	hostTOML := func(claude, dir string) string {
		return fmt.Sprintf("\n[hosts.box]\nssh = %q\nssh_args = [%s]\nclaude = %q\nworking_dir = %q\n",
			s.Dest, strings.Join(args, ", "), claude, dir)
	}
	run := func(t *testing.T, extra string) (string, error) {
		d := newDoctorSetup(t)
		d.claudeExtra = extra
		var out bytes.Buffer
		err := newDoctor().run(context.Background(), d.write(t), &out)
		t.Logf("doctor output:\n%s", out.String())
		return out.String(), err
	}

	out, err := run(t, hostTOML(fake, work))
	if err != nil || !strings.Contains(out, "✓ host box: reached over ssh; Claude Code 7.7.7 there; "+work+" exists") {
		t.Errorf("healthy host: %v", err)
	}

	// A held Claude there (its holder's folder, as the bot makes it) is
	// counted (with those other tests hold there meanwhile).
	held := filepath.Join(s.Home, ".cache", "untether", "hold", "doctor-"+strconv.Itoa(os.Getpid()))
	if err := os.MkdirAll(held, 0o700); err != nil {
		t.Fatal(err)
	}
	if u, err := user.Lookup(sshtest.User); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for _, p := range []string{filepath.Dir(held), held} {
			_ = os.Chown(p, uid, gid)
		}
	}
	out, err = run(t, hostTOML(fake, work))
	if err != nil || !regexp.MustCompile(`exists; \d+ Claude process(es)? held there`).MatchString(out) {
		t.Errorf("a held Claude there is not counted: %v", err)
	}
	_ = os.Remove(held)

	out, err = run(t, hostTOML(fake, work+"/missing"))
	if err == nil || !strings.Contains(out, "✗ host box: reached, Claude Code 7.7.7, but "+work+"/missing is not a directory there") {
		t.Errorf("missing directory: %v", err)
	}

	out, err = run(t, hostTOML(work+"/no-claude", work))
	if err == nil || !strings.Contains(out, "✗ host box: reached, but Claude Code does not run there") {
		t.Errorf("no CLI there: %v", err)
	}

	if err := os.WriteFile(s.KnownHosts, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, hostTOML(fake, work))
	if err == nil || !strings.Contains(out, "✗ host box") || !strings.Contains(out, "not in known_hosts") || !strings.Contains(out, "fix: ") {
		t.Errorf("unknown host key: %v", err)
	}
}
