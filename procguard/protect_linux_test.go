package procguard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The test binary doubles as the two processes of the test, chosen by
// helperEnv: a holder that keeps a secret in its environment (and calls
// Protect first, or not) until its stdin closes, and a reader that tries
// to read the holder's /proc/<pid>/environ, as a command Claude runs would.
const (
	helperEnv  = "PROCGUARD_TEST_HELPER"
	pidEnv     = "PROCGUARD_TEST_PID"
	secretEnv  = "PROCGUARD_TEST_SECRET"
	secret     = "s3cret-token-4711:AAH-not-for-claude"
	nobody     = 65534
	helperTest = "-test.run=^TestHelperProcess$"
)

// TestHelperProcess is not a test: it is the holder or the reader when
// helperEnv is set, and does nothing otherwise.
func TestHelperProcess(t *testing.T) {
	switch os.Getenv(helperEnv) {
	case "":
		return
	case "hold-protected":
		if err := Protect(); err != nil {
			fmt.Println("protect:", err)
			os.Exit(1)
		}
		hold()
	case "hold":
		hold()
	case "read":
		b, err := os.ReadFile("/proc/" + os.Getenv(pidEnv) + "/environ")
		switch {
		case errors.Is(err, syscall.EACCES):
			fmt.Println("EACCES")
		case err != nil:
			fmt.Println("error:", err)
		default:
			fmt.Printf("read %q\n", b)
		}
	}
	os.Exit(0)
}

// hold says it is ready, then waits until stdin is closed.
func hold() {
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// TestProtectHidesEnvironFromSameUser: a process of the same user can read
// an ordinary process's environment (the control: it gets the secret), and
// gets EACCES for one that called Protect. Root may read both (it has
// CAP_SYS_PTRACE), so as root both processes run as nobody.
func TestProtectHidesEnvironFromSameUser(t *testing.T) {
	exe := helperBinary(t)
	for _, tc := range []struct {
		mode string
		want string // the reader's answer holds this
	}{
		{"hold", secretEnv + "=" + secret},
		{"hold-protected", "EACCES"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			holder := helper(t, exe, tc.mode, secretEnv+"="+secret)
			in, err := holder.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := holder.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := holder.Start(); err != nil {
				if errors.Is(err, fs.ErrPermission) {
					t.Skipf("cannot start a process as uid %d here (%v): the test needs root or a normal user", nobody, err)
				}
				t.Fatal(err)
			}
			defer func() {
				_ = in.Close()
				if err := holder.Wait(); err != nil {
					t.Errorf("holder: %v", err)
				}
			}()
			line, err := bufio.NewReader(out).ReadString('\n')
			if line != "ready\n" {
				t.Fatalf("holder said %q (%v), want ready", line, err)
			}
			got, err := helper(t, exe, "read", fmt.Sprintf("%s=%d", pidEnv, holder.Process.Pid)).Output()
			if err != nil {
				t.Fatalf("reader: %v", err)
			}
			if !strings.Contains(string(got), tc.want) || (tc.want == "EACCES" && strings.Contains(string(got), secret)) {
				t.Errorf("reader got %s, want %s", got, tc.want)
			}
		})
	}
}

// helper is the test binary in a helper mode, as nobody when the test runs
// as root (root would read anything) and as the test's user otherwise.
func helper(t *testing.T, exe, mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(exe, helperTest)
	// A race-enabled binary waits a second before exiting unless told not to.
	cmd.Env = append([]string{helperEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"}, env...)
	cmd.Dir = filepath.Dir(exe)
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	return cmd
}

// helperBinary is a copy of the test binary that nobody may run: go test
// keeps its binary in a folder only its user can enter.
func helperBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "procguard-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	exe := filepath.Join(dir, "procguard.test")
	dst, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return exe
}
