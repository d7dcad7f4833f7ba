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

func dialVia(t *testing.T, h hold.Handle, from uint64) *reader {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	c, err := hold.DialVia(ctx, host.Local{}, os.Args[0], h, from)
	if err != nil {
		t.Fatal(err)
	}
	return read(c)
}

// Through a bridge (`hold bridge`, as a holder on another machine is
// reached) a client speaks to the holder as over its socket; a bridge that
// ends (the connection dropped) leaves the holder as a bot that stops does,
// and the next one replays what came meanwhile. An input resent with its id
// after the connection dropped is acked with its record, not written again.
func TestBridgeAttachesAndResumes(t *testing.T) {
	h := echo(t, filepath.Join(t.TempDir(), "hold"), time.Hour)
	r := dialVia(t, h, 0)
	if f := next(t, r); f.Kind != 'r' {
		t.Fatalf("first frame %+v, want the end of an empty replay", f)
	}
	input(t, r, "one")
	id := r.c.NextID()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	seq, err := r.c.InputID(ctx, id, []byte("two"))
	if err != nil {
		t.Fatal(err)
	}
	if f := next(t, r); string(f.Record.Line) != "out:two" {
		t.Fatalf("frame %+v, want out:two", f)
	}
	_ = r.c.Close() // the connection drops
	r2 := dialVia(t, h, seq)
	var lines []string
	for {
		f := next(t, r2)
		if f.Kind == 'r' {
			break
		}
		lines = append(lines, string(f.Kind)+" "+string(f.Record.Line))
	}
	if len(lines) != 2 || lines[0] != "i two" || lines[1] != "o out:two" {
		t.Errorf("replay %q, want the input and its output", lines)
	}
	again, err := r2.c.InputID(ctx, id, []byte("two"))
	if err != nil || again != seq {
		t.Fatalf("resent input: record %d, %v; want %d", again, err, seq)
	}
	input(t, r2, "three") // the next frame is three's: two was not written again
}

// A bridge to a holder that is gone says so (ErrGone, not worth trying
// again); one whose connection failed is worth trying again.
func TestBridgeToAGoneHolder(t *testing.T) {
	dir, err := os.MkdirTemp("", "hold-gone-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	_, err = hold.DialVia(ctx, host.Local{}, os.Args[0], hold.Handle{Proto: hold.Proto, Dir: dir, Secret: "s"}, 0)
	if !errors.Is(err, hold.ErrGone) || hold.Transient(err) {
		t.Errorf("err %v: want ErrGone, not transient", err)
	}
	_, err = hold.DialVia(ctx, host.Local{}, filepath.Join(dir, "no-untether"), hold.Handle{Dir: dir}, 0)
	if err == nil || !hold.Transient(err) {
		t.Errorf("a bridge that cannot start: %v, want a transient error", err)
	}
}

// A holder started with Detach is not the process started: that one ends
// once the holder is ready (over SSH its session ends with it), and the
// holder, a child of init now, serves as any.
func TestDetachedHolder(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], filepath.Join(t.TempDir(), "hold"), hold.Config{
		Path: "/bin/sh", Args: []string{"-c", `while read l; do echo "out:$l"; done`},
		Env: []string{"PATH=/usr/bin:/bin"}, Orphan: time.Hour, Detach: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(h.Holder) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// pid (comm) state ppid …
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if ppid, _ := strconv.Atoi(fields[1]); ppid == os.Getpid() {
		t.Errorf("the holder %d is still the test's child", h.Holder)
	}
	r := dial(t, h, 0)
	if f := next(t, r); f.Kind != 'r' {
		t.Fatalf("first frame %+v", f)
	}
	input(t, r, "detached")
}
