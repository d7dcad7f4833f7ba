package hold_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// A holder whose bot never comes back ends its CLI after the orphan time
// even when a line for the CLI's stdin is stuck (the CLI does not read it:
// busy, stopped): the bot's leaving is seen while the write is stuck, and
// closing stdin must not wait for that write (it held inMu, which
// closeStdin took: holder and CLI stayed for ever; issue 22).
func TestOrphanEndsCLIWithAStuckInput(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], filepath.Join(t.TempDir(), "hold"), hold.Config{
		Path: "/bin/sleep", Args: []string{"600"}, // never reads stdin
		Env: []string{"PATH=/usr/bin:/bin"}, Orphan: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	c, err := hold.Dial(ctx, h.Sock(), h.Secret, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = c.Input(context.Background(), []byte(strings.Repeat("x", 1<<20))) }() // > a pipe's buffer
	time.Sleep(500 * time.Millisecond)
	_ = c.Close() // the bot stops and never returns
	// Orphan (0.3 s) + endTerm (5 s) + endKill (5 s) is the real cost:
	// 15 s left a loaded machine 4.7 s for the rest; a hang's bound does not.
	deadline := time.Now().Add(hangBound)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(h.Dir); os.IsNotExist(err) && syscall.Kill(h.Pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("15 s after the orphan time the CLI %d and the holder folder are still there (wedged in closeStdin)", h.Pid)
}

// A CLI line over maxLine (64 MiB) is skipped and the holder reads on, as
// the runner without a holder does (its lineReader): it used to stop
// reading the CLI's stdout for good, so the CLI blocked on its next write
// and nothing it said after reached the bot.
func TestHolderReadsOnAfterAnOversizeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 70 MB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], filepath.Join(t.TempDir(), "hold"), hold.Config{
		Path: "/bin/sh", Args: []string{"-c", `read l; head -c 70000000 /dev/zero | tr '\0' a; echo; echo after; sleep 600`},
		Env: []string{"PATH=/usr/bin:/bin"}, Orphan: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	r := dial(t, h, 0)
	if f := next(t, r); f.Kind != 'r' {
		t.Fatalf("first frame %c", f.Kind)
	}
	if _, err := r.c.Input(ctx, []byte("go")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(hangBound)
	for {
		select {
		case f := <-r.frames:
			if f.Kind == 'o' && string(f.Record.Line) == "after" {
				return
			}
		case err := <-r.err:
			t.Fatalf("client: %v", err)
		case <-deadline:
			t.Fatal(`"after" never came: the holder stopped reading claude's stdout after an oversize line`)
		}
	}
}

// The holder carries out no frame of a client it replaced. A bot (A)
// stops with a line queued behind one the CLI has not read yet; the next
// bot (B) attaches meanwhile and numbers its input from the welcome's
// LastIn. A's queued line used to be written with the id B then gave its
// own line, and B's line was dropped as a "resend": acked with A's record,
// never written (a prompt or an approval answer of the new bot lost).
func TestReplacedClientsFramesDoNotEatTheNewOnes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], filepath.Join(t.TempDir(), "hold"), hold.Config{
		Path: "/bin/sh", Args: []string{"-c", `sleep 2; while read l; do printf 'out:%.20s\n' "$l"; done`},
		Env: []string{"PATH=/usr/bin:/bin"}, Orphan: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	// Bot A: a line larger than the CLI's stdin pipe (the CLI sleeps), and
	// one more queued behind it, in one write; then A stops.
	a, err := net.Dial("unix", h.Sock())
	if err != nil {
		t.Fatal(err)
	}
	hello, _ := json.Marshal(hold.Hello{Proto: hold.Proto, Secret: h.Secret})
	if _, err := a.Write(append(hello, '\n')); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(a).ReadBytes('\n'); err != nil { // the welcome
		t.Fatal(err)
	}
	big := "i 1 " + strings.Repeat("x", 200<<10) + "\ni 2 A-second\n"
	if _, err := a.Write([]byte(big)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	_ = a.Close()
	// Bot B attaches while the CLI still sleeps.
	r := dial(t, h, 1)
	t.Logf("B's welcome: last_in %d", r.c.Welcome.LastIn)
	time.Sleep(4 * time.Second) // the CLI reads; A's queued line is carried out
	seq, err := r.c.Input(ctx, []byte("B-line"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("B's line acked as record %d", seq)
	deadline := time.After(hangBound)
	for {
		select {
		case f := <-r.frames:
			t.Logf("frame %c %d %.40q", f.Kind, f.Record.Seq, f.Record.Line)
			if f.Kind == 'o' && string(f.Record.Line) == "out:B-line" {
				return
			}
		case err := <-r.err:
			t.Fatalf("client: %v", err)
		case <-deadline:
			t.Fatal("B's line was acked but never reached the CLI: dropped as a duplicate of A's stale frame")
		}
	}
}

// A holders' root open to others is refused: Spawn's MkdirAll leaves an
// existing root of any mode (and owner) alone, and in one made by another
// local user (a [state] path in a shared directory) the holder's folder
// could be swapped (renamed, a folder of links put in its place) between
// its creation and the log's open.
func TestSpawnRefusesAnOpenRoot(t *testing.T) {
	root := t.TempDir() + "/hold"
	if err := os.Mkdir(root, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(root, 0o777) // as another user would leave it
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], root, hold.Config{
		Path: "/bin/sleep", Args: []string{"600"}, Env: []string{"PATH=/usr/bin:/bin"}, Orphan: time.Minute})
	if err == nil {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
		fi, _ := os.Stat(root)
		t.Fatalf("a holder was started in a root of mode %v (want a refusal, or the root made 0700 after checking its owner)", fi.Mode().Perm())
	}
}
