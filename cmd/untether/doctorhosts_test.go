package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
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

	// Codex there ([hosts.box] codex, with [codex] on): its version, or
	// what to do when it does not run.
	codexThere := func(t *testing.T, codex string) (string, error) {
		d := newDoctorSetup(t)
		d.claudeExtra = hostTOML(fake, work) + fmt.Sprintf("codex = %q\n", codex)
		d.tail = fmt.Sprintf("[codex]\nbinary = %q\n", writeScript(t, d.dir, "codex", "echo 'codex-cli 0.171.0'"))
		var out bytes.Buffer
		err := newDoctor().run(context.Background(), d.write(t), &out)
		t.Logf("doctor output:\n%s", out.String())
		return out.String(), err
	}
	fakeCodex := filepath.Join(work, "codex")
	if err := os.WriteFile(fakeCodex, []byte("#!/bin/sh\necho 'codex-cli 9.9.9'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = codexThere(t, fakeCodex)
	if err != nil || !strings.Contains(out, "✓ host box: reached over ssh; Claude Code 7.7.7 there; Codex codex-cli 9.9.9 there; "+work+" exists") {
		t.Errorf("codex there: %v", err)
	}
	out, err = codexThere(t, work+"/no-codex")
	if err == nil || !strings.Contains(out, "✗ host box: reached, Claude Code 7.7.7, but Codex does not run there") || !strings.Contains(out, "[hosts.box] codex") {
		t.Errorf("no codex there: %v", err)
	}

	out, err = run(t, hostTOML(fake, work+"/missing"))
	if err == nil || !strings.Contains(out, "✗ host box: reached, Claude Code 7.7.7, but "+work+"/missing is not a directory there") {
		t.Errorf("missing directory: %v", err)
	}

	out, err = run(t, hostTOML(work+"/no-claude", work))
	if err == nil || !strings.Contains(out, "✗ host box: reached, but Claude Code does not run there") {
		t.Errorf("no CLI there: %v", err)
	}

	// A "claude" there that will not stop talking is no version, and the
	// bot keeps only a few KB of it.
	chatty := filepath.Join(work, "chatty")
	if err := os.WriteFile(chatty, []byte("#!/bin/sh\nhead -c 3000000 /dev/zero | tr '\\0' x\necho\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, hostTOML(chatty, work))
	if err == nil || !strings.Contains(out, "not a version") {
		t.Errorf("a CLI there that talks on: %v", err)
	}

	// Doctor, run while the bot runs, leaves the bot's connection alone:
	// it used the bot's control socket, and its Close ended the master
	// and so every process of the bot's there.
	d := newDoctorSetup(t)
	d.claudeExtra = hostTOML(fake, work)
	cfgPath := d.write(t)
	cfg, err := loadConfig(cfgPath, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()
	bot, err := sshhost.New(sshhost.Options{Name: "box", Dest: s.Dest, Args: s.Args, ControlDir: sshControlDir(cfg, "box"), Agent: self})
	if err != nil {
		t.Fatal(err)
	}
	defer bot.Close()
	p, err := bot.Start(context.Background(), host.Cmd{Path: "/bin/sleep", Args: []string{"60"}})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _, _ = p.Wait(); close(exited) }()
	if err := newDoctor().run(context.Background(), cfgPath, io.Discard); err != nil {
		t.Errorf("doctor: %v", err)
	}
	select {
	case <-exited:
		t.Error("the bot's process there ended when doctor closed its connection")
	case <-time.After(2 * time.Second):
	}
	_ = p.Signal(syscall.SIGKILL)

	if err := os.WriteFile(s.KnownHosts, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, hostTOML(fake, work))
	if err == nil || !strings.Contains(out, "✗ host box") || !strings.Contains(out, "not in known_hosts") || !strings.Contains(out, "fix: ") {
		t.Errorf("unknown host key: %v", err)
	}
}
