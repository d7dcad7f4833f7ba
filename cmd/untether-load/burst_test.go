package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/untether/untether/runner/claudetest"
)

// A small burst with the real CLI: two chats, two turns each, every
// answer delivered as a message, one CLI started per chat, and every
// measure taken.
func TestBurstSmoke(t *testing.T) {
	bin := os.Getenv(claudetest.BinaryEnv)
	if bin == "" || testing.Short() {
		t.Skip("set UNTETHER_TEST_CLAUDE to run a burst with the real CLI")
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-claude", bin, "-chats", "2", "-groups", "0", "-turns", "2",
		"-think", "100ms", "-answer-kb", "1", "-model-time", "100ms", "-timeout", "90s"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
	m := regexp.MustCompile(`(?m)^burst: chats=(\d+) turns=(\d+) lost=(\d+) 429s=(\d+) react_p50_ms=(\d+) react_p99_ms=(\d+) ` +
		`visible_p50_ms=(\d+) visible_p90_ms=(\d+) visible_p99_ms=(\d+) first_visible_p50_ms=(\d+) first_visible_p99_ms=(\d+) ` +
		`later_visible_p50_ms=(\d+) message_p50_ms=(\d+) message_p99_ms=(\d+) starts=(\d+) cpu_s=([\d.]+) cli_cpu_s=([\d.]+)$`).FindStringSubmatch(out.String())
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
	if num(1) != 2 || num(2) != 4 || num(3) != 0 || num(4) != 0 {
		t.Errorf("chats=%s turns=%s lost=%s 429s=%s, want 2, 4, 0, 0:\n%s", m[1], m[2], m[3], m[4], out.String())
	}
	if num(15) != 2 {
		t.Errorf("starts=%s, want 2 (one CLI per chat, kept live)", m[15])
	}
	if num(5) == 0 || num(10) == 0 || num(12) == 0 || m[17] == "0.0" {
		t.Errorf("a measure was not taken (first reaction, first and later turns visible, the CLIs' CPU):\n%s", out.String())
	}
	if num(13) < num(7) {
		t.Errorf("the answer as a message (p50 %d ms) before it was visible (p50 %d ms)", num(13), num(7))
	}
}

// The quick exchanges with the real CLI, one round: the follow-up and the
// message after /cancel are both answered as messages and timed.
func TestQuickSmoke(t *testing.T) {
	bin := os.Getenv(claudetest.BinaryEnv)
	if bin == "" || testing.Short() {
		t.Skip("set UNTETHER_TEST_CLAUDE to run the quick exchanges with the real CLI")
	}
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"-claude", bin, "-quick", "1", "-model-time", "100ms", "-timeout", "90s"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
	m := regexp.MustCompile(`(?m)^quick: rounds=(\d+) lost=(\d+) 429s=(\d+) followup_p50_ms=(\d+) followup_p90_ms=(\d+) followup_within=(\d+) ` +
		`again_p50_ms=(\d+) again_p90_ms=(\d+) again_within=(\d+)$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no summary line in the required form:\n%s", out.String())
	}
	if m[1] != "1" || m[2] != "0" || m[3] != "0" {
		t.Errorf("rounds=%s lost=%s 429s=%s, want 1, 0, 0:\n%s", m[1], m[2], m[3], out.String())
	}
	if !strings.Contains(out.String(), "a follow-up right after an answer") || !strings.Contains(out.String(), "a message 0.5 s after /cancel") {
		t.Errorf("a measure is missing:\n%s", out.String())
	}
}
