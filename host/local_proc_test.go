package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gone reports whether pid has ended: no such process, or a zombie nobody
// reaped yet (in a container the reaper may be slow or absent).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startSh starts a shell script on the local host and reads the first
// line it prints (a child's pid).
func startSh(t *testing.T, ctx context.Context, script string) (Process, int) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := Local{}.Start(ctx, Cmd{Path: "sh", Args: []string{"-c", script}, Stdout: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		_ = p.Signal(syscall.SIGKILL)
		t.Fatalf("reading the child's pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return p, child
}

// A process leads its own group: a signal to it reaches the children it
// started, and Wait tells the signal apart from an exit status.
func TestSignalKillsTheGroup(t *testing.T) {
	p, child := startSh(t, context.Background(), "sleep 60 & echo $!; wait")
	if pgid, err := syscall.Getpgid(p.Pid()); err != nil || pgid != p.Pid() {
		t.Fatalf("process group %d, %v; want its own (%d)", pgid, err, p.Pid())
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	exit, err := p.Wait()
	if err != nil || exit.Code != -1 || exit.Signal != "killed" || exit.String() != "signal: killed" {
		t.Fatalf("Wait = %+v (%s), %v; want killed", exit, exit, err)
	}
	waitGone(t, child)
}

// When ctx ends, the host kills the whole group, as for git's time limit.
func TestContextEndKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, child := startSh(t, ctx, "sleep 60 & echo $!; wait")
	cancel()
	exit, err := p.Wait()
	if exit.Code != -1 || exit.Signal != "killed" || err != nil {
		t.Fatalf("Wait = %+v, %v; want killed", exit, err)
	}
	waitGone(t, child)
}

// A tool in a session of its own is outside the group; Descendants still
// finds it while its parent lives, and Kill ends it.
func TestDescendantsFindsOwnSessions(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := (Local{}).LookPath(context.Background(), "setsid"); err != nil {
		t.Skip("no setsid")
	}
	ctx := context.Background()
	p, child := startSh(t, ctx, "setsid sleep 60 & echo $!; wait")
	defer func() { _ = p.Signal(syscall.SIGKILL); _, _ = p.Wait() }()
	var pids []int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if pids, err = (Local{}).Descendants(ctx, p.Pid()); err != nil {
			t.Fatal(err)
		}
		if len(pids) > 0 || time.Now().After(deadline) {
			break
		}
	}
	found := false
	for _, pid := range pids {
		found = found || pid == child
	}
	if !found {
		t.Fatalf("Descendants(%d) = %v, want %d among them", p.Pid(), pids, child)
	}
	if err := (Local{}).Kill(ctx, []int{child, 1 << 30}, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, child)
}

// An exit status is no error; stdin, environment and directory reach the
// process; a program that is not there fails at Start.
func TestStartRunsAndWaits(t *testing.T) {
	ctx, dir := context.Background(), t.TempDir()
	var out bytes.Buffer
	p, err := Local{}.Start(ctx, Cmd{Path: "sh", Args: []string{"-c", `cat; echo "$X"; pwd; exit 3`},
		Env: []string{"X=y", "PATH=" + os.Getenv("PATH")}, Dir: dir, Stdin: strings.NewReader("in\n"), Stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	exit, err := p.Wait()
	if err != nil || exit.Code != 3 || exit.Signal != "" || exit.String() != "exit status 3" {
		t.Fatalf("Wait = %+v, %v; want exit status 3", exit, err)
	}
	if got, want := out.String(), "in\ny\n"; !strings.HasPrefix(got, want) || !strings.Contains(got, dir[strings.LastIndex(dir, "/"):]) {
		t.Fatalf("output %q, want %q then the folder %s", got, want, dir)
	}
	if _, err := (Local{}).Start(ctx, Cmd{Path: "/nonexistent/untether-no-such-program", Stdout: io.Discard}); err == nil {
		t.Error("starting a missing program: no error")
	}
	if _, err := (Local{}).LookPath(ctx, "untether-no-such-program"); err == nil {
		t.Error("LookPath of a missing program: no error")
	}
}
