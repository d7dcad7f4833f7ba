package codextest

import (
	"os"
	"os/exec"
	"testing"
)

// BinaryEnv names the variable that holds the pinned Codex CLI's path
// (.ci/run sets it from .ci/install-codex.sh).
const BinaryEnv = "UNTETHER_TEST_CODEX"

// Binary is the pinned Codex CLI; the test skips without it or without
// node on PATH (the codex launcher is a node script).
func Binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(BinaryEnv)
	if bin == "" {
		t.Skip("UNTETHER_TEST_CODEX is not set: tests of the real Codex need the pinned CLI (.ci/install-codex.sh prints its path)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the codex launcher is a node script")
	}
	return bin
}
