package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
)

// A small run through the whole command: the real bot against the limited
// fake, a group and private chats, an approval pressed by the simulated
// user, multi-part finals. The full load (minutes) is not part of go test.
func TestLoadSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of real pacing")
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-chats", "3", "-groups", "1", "-turns", "1", "-turn-time", "1s",
		"-answer-kb", "5", "-stagger", "50ms", "-think", "50ms", "-press-delay", "50ms", "-timeout", "60s"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
	line := regexp.MustCompile(`(?m)^load: chats=(\d+) turns=(\d+) 429s=(\d+) finals_lost=(\d+) final_p50_ms=(\d+) ` +
		`final_p99_ms=(\d+) approval_p99_ms=(\d+) edits_per_s=([\d.]+) cpu_s=([\d.]+) rss_mb=(\d+) ` +
		`first_text_p50_ms=(\d+) first_text_p99_ms=(\d+) followup_p50_ms=(-?\d+) followup_p99_ms=(-?\d+) ` +
		`calls_per_turn_short=([\d.]+) calls_per_turn_long=([\d.]+) press_to_final_p50_ms=(\d+) followup_p90_ms=(-?\d+)$`)
	m := line.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no summary line in the required form:\n%s", out.String())
	}
	num := func(i int) int {
		n, err := strconv.Atoi(m[i])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if num(1) != 3 || num(2) != 6 {
		t.Errorf("chats=%s turns=%s, want 3 and 6 (one turn and one follow-up each)", m[1], m[2])
	}
	if num(3) != 0 || num(4) != 0 {
		t.Errorf("429s=%s finals_lost=%s, want 0 and 0:\n%s", m[3], m[4], out.String())
	}
	// Chat 1's first turn asks (approval-every 2): one prompt, pressed.
	if !regexp.MustCompile(`approval prompt \(request → sent\)\s+1\s`).MatchString(out.String()) {
		t.Errorf("the approval was not measured:\n%s", out.String())
	}
	if num(10) == 0 {
		t.Errorf("rss_mb=0: getrusage not read")
	}
	// Every measure of the streaming workload was taken (first text: the
	// two private chats' turns and follow-ups).
	for _, what := range []string{`first text, private \(delta → seen\)\s+4\s`, `follow-up, bot's overhead\s+3\s`,
		`Approve pressed → final\s+1\s`} {
		if !regexp.MustCompile(what).MatchString(out.String()) {
			t.Errorf("not measured: %s\n%s", what, out.String())
		}
	}
	if m[16] == "0.0" || m[17] == "0.0" {
		t.Errorf("calls per turn not counted: short %s, long %s", m[16], m[17])
	}
}

// Idle mode: chats that used the bot leave no goroutine behind.
func TestIdleSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("60 chats through the bot")
	}
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-idle-chats", "60", "-idle-timeout", "100ms", "-timeout", "60s"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errs.String())
	}
	m := regexp.MustCompile(`idle: chats=60 goroutines_base=(\d+) goroutines_idle=(\d+) goroutines_idle_non_http=(\d+) `).
		FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no idle summary:\n%s", out.String())
	}
	base, _ := strconv.Atoi(m[1])
	nonHTTP, _ := strconv.Atoi(m[3])
	// Before any chat the same kinds of goroutines run; HTTP connections
	// depend on how many calls overlapped, not on chats.
	baseLine := regexp.MustCompile(`goroutines: \d+ before any chat \((\d+) of them HTTP connections\)`).FindStringSubmatch(out.String())
	if baseLine == nil {
		t.Fatalf("no goroutine line:\n%s", out.String())
	}
	baseHTTP, _ := strconv.Atoi(baseLine[1])
	if nonHTTP > base-baseHTTP {
		t.Errorf("%d goroutines besides HTTP connections with 60 idle chats, %d before any chat:\n%s", nonHTTP, base-baseHTTP, out.String())
	}
}

// Junk mode: strangers' presses cost the state file nothing and get few
// answers (the owner's answer time is for people to read, not asserted).
func TestJunkSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of real pacing")
	}
	var out, errs bytes.Buffer
	if code := run(context.Background(), []string{"-junk-presses", "100", "-junk-users", "20", "-timeout", "60s"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errs.String())
	}
	m := regexp.MustCompile(`(?m)^junk: presses=100 strangers=20 owner_answer_ms_before=\d+ owner_answer_ms_during=\d+ ` +
		`junk_answered=(\d+) commits_alone=(\d+) commits_during=(\d+) peak_goroutines=\d+$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no junk summary in the required form:\n%s", out.String())
	}
	answered, _ := strconv.Atoi(m[1])
	alone, _ := strconv.Atoi(m[2])
	during, _ := strconv.Atoi(m[3])
	if answered > 10 || during > alone {
		t.Errorf("junk answered %d times (want at most 10); the owner's turn cost %d commits alone and %d behind the junk:\n%s",
			answered, alone, during, out.String())
	}
}
