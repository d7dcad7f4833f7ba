package hold_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/host"
)

// cat is a stand-in CLI that writes back each line as soon as it reads it.
func cat(b *testing.B) hold.Handle {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := hold.Spawn(ctx, host.Local{}, os.Args[0], filepath.Join(b.TempDir(), "hold"), hold.Config{
		Path: "/bin/cat", Env: []string{"PATH=/usr/bin:/bin"}, Orphan: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-h.Pid, syscall.SIGKILL)
		_ = syscall.Kill(h.Holder, syscall.SIGKILL)
	})
	return h
}

func endCat(b *testing.B, c *hold.Client) {
	_ = c.CloseInput()
	for {
		f, err := c.Next()
		if err != nil || f.Kind == 'x' {
			break
		}
	}
	_ = c.Quit()
	_ = c.Close()
}

func attach(b *testing.B, h hold.Handle, from uint64) *hold.Client {
	b.Helper()
	c, err := hold.Dial(context.Background(), h.Sock(), h.Secret, from)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// outputs reads c's frames as the runner does (acks are read while Input
// waits) and says each output line.
func outputs(c *hold.Client) <-chan struct{} {
	outs := make(chan struct{}, 1)
	go func() {
		for {
			f, err := c.Next()
			if err != nil {
				return
			}
			if f.Kind == 'o' {
				outs <- struct{}{}
			}
		}
	}()
	return outs
}

// BenchmarkHopRoundTrip is a line to the CLI and its answer back through
// the holder: the added latency on first text is this less
// BenchmarkPipeRoundTrip (the bot's pipes without a holder).
func BenchmarkHopRoundTrip(b *testing.B) {
	h := cat(b)
	c := attach(b, h, 0)
	defer func() { _ = c.CloseInput(); _ = c.Quit(); _ = c.Close() }()
	if f, err := c.Next(); err != nil || f.Kind != 'r' {
		b.Fatalf("replay end: %+v %v", f, err)
	}
	line := []byte(`{"type":"user","message":{"role":"user","content":"hello"}}`)
	ctx := context.Background()
	outs := outputs(c)
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Input(ctx, line); err != nil {
			b.Fatal(err)
		}
		<-outs
	}
	b.StopTimer()
}

func BenchmarkPipeRoundTrip(b *testing.B) {
	cmd := exec.Command("/bin/cat")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	br := bufio.NewReader(out)
	line := []byte(`{"type":"user","message":{"role":"user","content":"hello"}}` + "\n")
	for b.Loop() {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplay1MB is a re-attach that replays a journal of 1 MiB (the
// bot's input and the CLI's output, 512 lines of 1 KiB each way) up to
// its end marker.
func BenchmarkReplay1MB(b *testing.B) {
	h := cat(b)
	c := attach(b, h, 0)
	if f, err := c.Next(); err != nil || f.Kind != 'r' {
		b.Fatalf("replay end: %+v %v", f, err)
	}
	line := []byte(`{"type":"assistant","text":"` + strings.Repeat("x", 1000) + `"}`)
	ctx := context.Background()
	outs := outputs(c)
	for range 512 {
		if _, err := c.Input(ctx, line); err != nil {
			b.Fatal(err)
		}
		<-outs
	}
	_ = c.Close()
	b.ResetTimer()
	for b.Loop() {
		c := attach(b, h, 1)
		n := 0
		for {
			f, err := c.Next()
			if err != nil {
				b.Fatal(err)
			}
			if f.Kind == 'r' {
				break
			}
			n += len(f.Record.Line)
		}
		if n < 1<<20 {
			b.Fatalf("replayed %d bytes", n)
		}
		_ = c.Close()
	}
	b.StopTimer()
	endCat(b, attach(b, h, 0))
}
