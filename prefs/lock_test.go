package prefs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The lock tests re-execute this test binary as a second process: flock conflicts are what
// keeps two bots off one file, and that is a property between processes.
const (
	helperEnv     = "PREFS_TEST_LOCK_HELPER"
	helperPathEnv = "PREFS_TEST_LOCK_PATH"
	helperTimeout = 300 * time.Millisecond
)

type helperResult struct {
	Err       string `json:"err"`
	Locked    bool   `json:"locked"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(lockHelper(mode, os.Getenv(helperPathEnv)))
	}
	os.Exit(m.Run())
}

// lockHelper is the second process. "try": open once and report how it went. "hold": open,
// say "ready", keep the store open until stdin closes.
func lockHelper(mode, path string) int {
	start := time.Now()
	s, err := Open(context.Background(), path, WithLockTimeout(helperTimeout), WithLogger(quietLogger()))
	switch mode {
	case "try":
		res := helperResult{ElapsedMS: time.Since(start).Milliseconds()}
		if err != nil {
			res.Err, res.Locked = err.Error(), errors.Is(err, ErrLocked)
		} else {
			_ = s.Close()
		}
		if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
			return 3
		}
		return 0
	case "hold":
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return 0
	}
	return 4
}

func helperCmd(ctx context.Context, mode, path string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	// Under -race the runtime idles a second at exit unless told otherwise.
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, helperPathEnv+"="+path, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	return cmd
}

func TestSecondProcessGetsFastClearError(t *testing.T) {
	path := dbPath(t)
	openAt(t, path)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}

	// The context only guards against a hang; the assertions below are much tighter.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	out, err := helperCmd(ctx, "try", path).Output()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("helper: %v (output %q)", err, out)
	}
	var res helperResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	t.Logf("second process: %dms, %s", res.ElapsedMS, res.Err)
	if !res.Locked {
		t.Fatalf("second process: err = %q, want a locked error", res.Err)
	}
	for _, want := range []string{path, fmt.Sprintf("pid %d", os.Getpid()), host, "[state]"} {
		if !strings.Contains(res.Err, want) {
			t.Errorf("error %q does not mention %q", res.Err, want)
		}
	}
	if limit := helperTimeout + 700*time.Millisecond; time.Duration(res.ElapsedMS)*time.Millisecond > limit {
		t.Errorf("Open in the second process took %dms, want under %v", res.ElapsedMS, limit)
	}
	if wall > 10*time.Second {
		t.Errorf("second process ran %v in total", wall)
	}
}

func TestLockHeldByOtherProcessNamesItsPidAndIsReleasedOnClose(t *testing.T) {
	path := dbPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := helperCmd(ctx, "hold", path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("helper said %q, %v", line, err)
	}

	start := time.Now()
	_, err = Open(ctx, path, WithLockTimeout(helperTimeout), WithLogger(quietLogger()))
	elapsed := time.Since(start)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	if want := fmt.Sprintf("pid %d", cmd.Process.Pid); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s and %s", err, path, want)
	}
	if limit := helperTimeout + 700*time.Millisecond; elapsed > limit {
		t.Errorf("Open took %v, want under %v", elapsed, limit)
	}

	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper exit: %v", err)
	}
	s := openAt(t, path, WithLockTimeout(helperTimeout))
	o, ok := readOwner(s.path)
	if !ok || o.PID != os.Getpid() {
		t.Errorf("owner note after takeover = %+v (readable %v), want our pid %d", o, ok, os.Getpid())
	}
}

// bbolt's flock is tied to the open file description, so a second Open in the same process
// conflicts just like another process would.
func TestSecondOpenInSameProcessIsLocked(t *testing.T) {
	path := dbPath(t)
	openAt(t, path)
	for _, timeout := range []time.Duration{0, helperTimeout} {
		start := time.Now()
		_, err := Open(context.Background(), path, WithLockTimeout(timeout), WithLogger(quietLogger()))
		elapsed := time.Since(start)
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("timeout %v: err = %v, want ErrLocked", timeout, err)
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("error %q does not name the file and pid", err)
		}
		if limit := timeout + 700*time.Millisecond; elapsed > limit {
			t.Errorf("timeout %v: Open took %v, want under %v", timeout, elapsed, limit)
		}
	}
}

func TestContextDeadlineBoundsLockWait(t *testing.T) {
	path := dbPath(t)
	openAt(t, path)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Open(ctx, path, WithLockTimeout(time.Hour), WithLogger(quietLogger()))
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	// Against the hour of WithLockTimeout, which is what ignoring ctx
	// would take: a minute is no speed goal for a 100 ms wait.
	if elapsed := time.Since(start); elapsed > time.Minute {
		t.Errorf("Open took %v despite a 100ms context deadline", elapsed)
	}
}

func TestLockedWithoutOwnerNoteStillNamesFile(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	if err := os.Remove(ownerPath(s.path)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path, WithLockTimeout(0), WithLogger(quietLogger()))
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v, want ErrLocked naming %s", err, path)
	}
}

func TestStaleOwnerNoteDoesNotBlock(t *testing.T) {
	path := dbPath(t)
	s := openAt(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stale := `{"pid":999999,"host":"elsewhere","started":"2020-01-01T00:00:00Z"}`
	if err := os.WriteFile(ownerPath(path), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, WithLockTimeout(0))
	if o, ok := readOwner(s.path); !ok || o.PID != os.Getpid() {
		t.Errorf("owner note = %+v (readable %v), want ours", o, ok)
	}
}
