package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// claudeVersionWait bounds `claude --version` (Node starts slowly on a cold
// cache; the pinned CLI answers in about 10 ms on a warm one).
const claudeVersionWait = 30 * time.Second

// claudeCandidates are the places Claude Code's installers put the
// executable, in the order they are tried after PATH: a service or a fresh
// shell often has a shorter PATH than the one claude was installed from.
func claudeCandidates(home string, npmPrefix func() string) []string {
	var out []string
	if home != "" {
		out = append(out,
			filepath.Join(home, ".local", "bin", "claude"),    // the native installer
			filepath.Join(home, ".claude", "local", "claude"), // `claude migrate-installer`
		)
	}
	if p := npmPrefix(); p != "" {
		out = append(out, filepath.Join(p, "bin", "claude")) // npm install -g
	}
	if home != "" {
		out = append(out, filepath.Join(home, ".npm-global", "bin", "claude")) // npm's documented user prefix
	}
	return append(out, "/usr/local/bin/claude", "/opt/homebrew/bin/claude")
}

// findClaude returns the absolute path of the claude executable: on PATH
// first, then in the common install places (candidates, asked only when
// PATH has none: npm may take a while). tried lists where it looked.
func findClaude(candidates func() []string) (path string, tried []string) {
	if p, err := exec.LookPath("claude"); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			return abs, nil
		}
	}
	tried = append(tried, "PATH")
	for _, c := range candidates() {
		// LookPath of an absolute path checks that it is an executable file.
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
		tried = append(tried, c)
	}
	return "", tried
}

// npmGlobalPrefix asks npm where `npm install -g` puts things; "" when npm
// is not installed or does not answer in time.
func npmGlobalPrefix(ctx context.Context) string {
	if p := os.Getenv("NPM_CONFIG_PREFIX"); p != "" {
		return p
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "config", "get", "prefix")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// defaultClaudeCandidates are claudeCandidates for this user.
func defaultClaudeCandidates(ctx context.Context) func() []string {
	return func() []string {
		home, _ := os.UserHomeDir()
		return claudeCandidates(home, func() string { return npmGlobalPrefix(ctx) })
	}
}

// errNoVersion is a claude --version that printed nothing.
var errNoVersion = errors.New("printed nothing")

// claudeVersion runs `bin --version` in env and returns its first line,
// e.g. "2.1.330 (Claude Code)". On failure stderr holds the end of what
// the command wrote there; a timeout wraps context.DeadlineExceeded.
func claudeVersion(ctx context.Context, bin string, env []string, wait time.Duration) (version string, stderr string, err error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = env
	cmd.WaitDelay = time.Second // a child left holding the pipes must not hold us
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return "", "", fmt.Errorf("%s --version did not answer within %s: %w", bin, wait, ctx.Err())
	case err != nil:
		return "", errOut.String(), fmt.Errorf("%s --version failed: %w", bin, err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out.String()), "\n")
	if first = strings.TrimSpace(first); first == "" {
		return "", errOut.String(), fmt.Errorf("%s --version: %w", bin, errNoVersion)
	}
	return first, "", nil
}
