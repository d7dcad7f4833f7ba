package host

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses: fields count from the last ')'.
	line := "42 (a) b (c) S 7 42 42 0 -1 4194304 100 0 0 0 150 50 3 2 20 0 1 0 100 1000 10\n"
	st, ok := parseStat([]byte(line))
	if !ok || st.ppid != 7 || st.ticks != 150+50+3+2 {
		t.Fatalf("parseStat = %+v, %v", st, ok)
	}
	if _, ok := parseStat([]byte("42 (x")); ok {
		t.Error("a cut line was read")
	}
}

// The CPU time of a tree counts what a child uses: a shell waiting on a
// busy loop it started is busy. Measuring CPU needs real time: this test
// spins for a moment.
func TestTreeCPUCountsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	ctx := context.Background()
	p, child := startSh(t, ctx, "sh -c 'while :; do :; done' & echo $!; wait")
	defer func() { _ = p.Signal(syscall.SIGKILL); _, _ = p.Wait() }()
	before, err := Local{}.TreeCPU(ctx, p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	// The child first: the tree, read after, holds at least as much.
	own, err := Local{}.TreeCPU(ctx, child)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Local{}.TreeCPU(ctx, p.Pid())
	if err != nil {
		t.Fatal(err)
	}
	// A core shared with others: ask for a tenth of the time only.
	if used := after - before; used < 70*time.Millisecond {
		t.Errorf("the tree used %v in 700ms with a busy child", used)
	}
	if own <= 0 || after < own {
		t.Errorf("the child alone used %v, the tree %v", own, after)
	}
	if _, err := (Local{}).TreeCPU(ctx, 1<<30); err == nil {
		t.Error("TreeCPU of a pid that does not exist: no error")
	}
	if _, err := (Local{}).TreeCPU(ctx, 0); err == nil {
		t.Error("TreeCPU of pid 0: no error")
	}
}
