package hold_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// The test binary is its own holder: `TEST hold` runs hold.Main.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "hold" {
		os.Exit(hold.Command(os.Args[2:], os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// hangBound bounds every wait of these tests on a holder (a race-built
// test binary) and its CLI: only a hang reaches it, also on a loaded
// 2-core machine, so no test measures the machine's speed.
const hangBound = 2 * time.Minute

// echo is a stand-in CLI: each line it reads comes back as "out:LINE".
func echo(t *testing.T, root string, orphan time.Duration) hold.Handle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], root, hold.Config{
		Path: "/bin/sh", Args: []string{"-c", `while read l; do echo "out:$l"; done; echo bye >&2`},
		Env: []string{"PATH=/usr/bin:/bin"}, Orphan: orphan})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a failed test must not leave them running
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	return h
}

// reader reads a client's frames on its own goroutine, as the runner
// does: acks are read while the test waits for the frames it wants.
type reader struct {
	c      *hold.Client
	frames chan hold.Frame
	err    chan error
}

func read(c *hold.Client) *reader {
	r := &reader{c: c, frames: make(chan hold.Frame, 1024), err: make(chan error, 1)}
	go func() {
		for {
			f, err := c.Next()
			if err != nil {
				r.err <- err
				return
			}
			r.frames <- f
		}
	}()
	return r
}

func next(t *testing.T, r *reader) hold.Frame {
	t.Helper()
	select {
	case f := <-r.frames:
		return f
	case err := <-r.err:
		t.Fatalf("next frame: %v", err)
	case <-time.After(hangBound):
		t.Fatalf("no frame in %v", hangBound)
	}
	return hold.Frame{}
}

func input(t *testing.T, r *reader, line string) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	seq, err := r.c.Input(ctx, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if f := next(t, r); f.Kind != 'o' || string(f.Record.Line) != "out:"+line {
		t.Fatalf("after input %q got frame %c %q", line, f.Kind, f.Record.Line)
	}
	return seq
}

func dial(t *testing.T, h hold.Handle, from uint64) *reader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	c, err := hold.Dial(ctx, h.Sock(), h.Secret, from)
	if err != nil {
		t.Fatal(err)
	}
	return read(c)
}

func TestHolderReplaysAfterDetach(t *testing.T) {
	root := filepath.Join(t.TempDir(), "hold")
	h := echo(t, root, time.Hour)
	for path, want := range map[string]os.FileMode{h.Dir: 0o700 | os.ModeDir, h.Sock(): 0o600 | os.ModeSocket,
		filepath.Join(h.Dir, "journal"): 0o600} {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	c := dial(t, h, 0)
	if f := next(t, c); f.Kind != 'r' || f.Seq != 0 {
		t.Fatalf("first frame %+v, want the end of an empty replay", f)
	}
	if seq := input(t, c, "one"); seq != 1 {
		t.Fatalf("input record %d, want 1", seq)
	}
	_ = c.c.Close() // the bot dies

	c = dial(t, h, 1)
	defer c.c.Close()
	if w := c.c.Welcome; w.LastIn != 1 || w.Last != 2 {
		t.Fatalf("welcome %+v", w)
	}
	want := []string{"i 1 one", "o 2 out:one"}
	for _, w := range want {
		f := next(t, c)
		if got := string(f.Kind) + " " + itoa(f.Record.Seq) + " " + string(f.Record.Line); got != w {
			t.Fatalf("replayed %q, want %q", got, w)
		}
	}
	if f := next(t, c); f.Kind != 'r' || f.Seq != 2 {
		t.Fatalf("frame %+v, want the end of the replay at 2", f)
	}
	if seq := input(t, c, "two"); seq != 3 {
		t.Fatalf("input record %d, want 3", seq)
	}
	if err := c.c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	var ex *hold.Exit
	for ex == nil {
		if f := next(t, c); f.Kind == 'x' {
			ex = f.Exit
		}
	}
	if ex.Code != 0 || !strings.Contains(ex.StderrTail, "bye") {
		t.Fatalf("exit %+v", ex)
	}
	if err := c.c.Quit(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, h.Dir)
}

func TestHolderRefusesAWrongSecret(t *testing.T) {
	h := echo(t, filepath.Join(t.TempDir(), "hold"), time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if _, err := hold.Dial(ctx, h.Sock(), "guess", 0); !errors.Is(err, hold.ErrGone) {
		t.Fatalf("dial with a wrong secret: %v", err)
	}
	c := dial(t, h, 0)
	_ = c.c.CloseInput()
	_ = c.c.Quit()
	waitGone(t, h.Dir)
}

func TestHolderEndsTheCLIWhenNoBotComes(t *testing.T) {
	h := echo(t, filepath.Join(t.TempDir(), "hold"), 300*time.Millisecond)
	waitGone(t, h.Dir)
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if _, err := hold.Dial(ctx, h.Sock(), h.Secret, 0); !errors.Is(err, hold.ErrGone) {
		t.Fatalf("dial after the orphan time: %v", err)
	}
}

func waitGone(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(hangBound)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s still there after %v", dir, hangBound)
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestHolderEndsTheCLIOnSIGTERM(t *testing.T) {
	h := echo(t, filepath.Join(t.TempDir(), "hold"), time.Hour)
	if err := syscall.Kill(h.Holder, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, h.Dir)
	deadline := time.Now().Add(hangBound)
	for syscall.Kill(h.Pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(h.Pid, 0) == nil {
		t.Errorf("the CLI %d outlived its holder's SIGTERM", h.Pid)
	}
}
