package runner

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/runner/claudetest"
)

// Contract tests of the two setups the runner avoids on purpose. They run
// the CLI directly, since the runner cannot be made to use them.

func (r *rig) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, r.opts.Binary, args...)
	cmd.Env = r.opts.Env
	cmd.Dir = r.opts.WorkDir
	cmd.WaitDelay = time.Second
	return cmd
}

// Interactive mode needs pipes: with a terminal on stdin the CLI refuses.
func TestContractInteractiveRefusesTTY(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("never asked"))
	master, tty, err := openPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	go drain(master)
	cmd := r.command(ctxFor(t), "-p", "--verbose", "--input-format", "stream-json", "--output-format", "stream-json",
		"--permission-prompt-tool", "stdio")
	cmd.Stdin = tty
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	_ = tty.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "Input must be provided") {
		t.Errorf("interactive CLI with a TTY on stdin: %v, stderr %q; want exit 1 and the CLI's complaint", err, stderr.String())
	}
	if n := len(r.api.Requests()); n != 0 {
		t.Errorf("%d API requests", n)
	}
}

// One-shot mode with an open, silent pipe on stdin waits for input first:
// the reason StartOneShot gives it a PTY instead.
func TestContractOneShotPipeStalls(t *testing.T) {
	r := newRig(t, true).serve(claudetest.Say("late answer"))
	cmd := r.command(ctxFor(t), "-p", "--verbose", "--output-format", "stream-json", "--", "Answer once.")
	stdin, err := cmd.StdinPipe() // open, never written, closed after the run
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("one-shot with a pipe: %v, stderr %q", err, stderr.String())
	}
	t.Logf("one-shot with an open pipe on stdin: %v to exit", time.Since(began))
	if !strings.Contains(stderr.String(), "no stdin data received") {
		t.Errorf("stderr = %q, want the CLI's stdin wait warning", stderr.String())
	}
	if !strings.Contains(stdout.String(), "late answer") {
		t.Errorf("the run did not answer: %q", stdout.String())
	}
}
