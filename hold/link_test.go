package hold_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/hold/holdtest"
	"github.com/untether/untether/host"
)

// pipeClient is a client of a stand-in holder that welcomes it and reads
// what it sends until it closes.
func pipeClient(t *testing.T) *hold.Client {
	t.Helper()
	return holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto}, holdtest.Drain)
}

// errUnreachable is a redial's error while the host does not answer.
var errUnreachable = fmt.Errorf("ssh: connect: %w", host.ErrUnreachable)

// A line written while the connection is down waits for the relink and
// goes over the new client with its id: the holder writes it once. The new
// client replays from the record asked for, not before.
func TestLinkInputWaitsForTheRelink(t *testing.T) {
	h := echo(t, filepath.Join(t.TempDir(), "hold"), time.Hour)
	first := dial(t, h, 1)
	if f := next(t, first); f.Kind != 'r' {
		t.Fatalf("first frame %+v, want the end of the replay", f)
	}
	if seq := input(t, first, "one"); seq != 1 {
		t.Fatalf("input record %d, want 1", seq)
	}
	synctest.Test(t, func(t *testing.T) {
		redial := func(ctx context.Context, from uint64) (*hold.Client, error) {
			return hold.Dial(ctx, h.Sock(), h.Secret, from)
		}
		l := hold.NewLink(first.c, redial)
		_ = first.c.Close() // the connection drops
		type result struct {
			seq uint64
			err error
		}
		wrote := make(chan result, 1)
		go func() {
			seq, err := l.Input(context.Background(), []byte("two"))
			wrote <- result{seq, err}
		}()
		synctest.Wait() // the writer waits for a new client
		select {
		case r := <-wrote:
			t.Fatalf("Input returned %+v before the relink", r)
		default:
		}
		c, err := l.Relink(errors.New("dropped"), hold.Relinking{Agent: "echo", From: 3})
		if err != nil {
			t.Fatal(err)
		}
		if l.Client() != c || l.Await(first.c) != c {
			t.Error("the link's client is not the new one")
		}
		r := read(c)
		if got := <-wrote; got.err != nil || got.seq != 3 {
			t.Errorf("Input = %d, %v; want record 3", got.seq, got.err)
		}
		var outs []string
		for len(outs) == 0 || outs[len(outs)-1] != "out:two" {
			if f := <-r.frames; f.Kind == 'o' {
				outs = append(outs, string(f.Record.Line))
			}
		}
		if len(outs) != 1 {
			t.Errorf("output after the relink %q, want out:two once", outs)
		}
		l.Stop()
		<-r.err
	})
}

// A host that does not answer is tried again, after pauses that double,
// until it answers; the replay asked for is the same each time, and
// Relinked runs once reached.
func TestLinkRelinkRetriesUntilReached(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var froms []uint64
		first, next := pipeClient(t), pipeClient(t)
		_ = first.Close() // the connection drops
		l := hold.NewLink(first, func(_ context.Context, from uint64) (*hold.Client, error) {
			froms = append(froms, from)
			if len(froms) < 3 {
				return nil, errUnreachable
			}
			return next, nil
		})
		relinked := make(chan struct{})
		begin := time.Now()
		c, err := l.Relink(errors.New("dropped"), hold.Relinking{Agent: "x", From: 7,
			Relinked: func(context.Context) { close(relinked) }})
		if err != nil || c != next || l.Client() != next {
			t.Fatalf("Relink = %p, %v; want the third client", c, err)
		}
		if took := time.Since(begin); took != 600*time.Millisecond {
			t.Errorf("reached after %v, want the pauses 200ms + 400ms", took)
		}
		if fmt.Sprint(froms) != "[7 7 7]" {
			t.Errorf("redialled from %v", froms)
		}
		<-relinked
		l.Stop()
	})
}

// When Relink gives up: a holder that is gone (at once), the link stopped
// or the session detached (no try), a session being closed (one try), a
// host down for longer than Wait. Each error says which agent and why.
func TestLinkRelinkGivesUp(t *testing.T) {
	gone := fmt.Errorf("%w: connect: no such file", hold.ErrGone)
	closing := make(chan struct{})
	close(closing)
	for _, tc := range []struct {
		name     string
		fail     error
		r        hold.Relinking
		stop     bool
		tries    int
		want     error
		says     string
		tookLess time.Duration
	}{
		{name: "holder gone", fail: gone, tries: 1, want: hold.ErrGone, says: "lost the holder of x"},
		{name: "stopped", fail: errUnreachable, stop: true, tries: 0, says: "lost the holder of x"},
		{name: "detached", fail: errUnreachable, r: hold.Relinking{Detached: func() bool { return true }}, tries: 0, says: "lost the holder of x"},
		{name: "closing", fail: errUnreachable, r: hold.Relinking{Closing: closing}, tries: 1, want: host.ErrUnreachable, says: "closed while x's holder could not be reached"},
		{name: "host down too long", fail: errUnreachable, r: hold.Relinking{Wait: time.Minute}, tries: 16, want: host.ErrUnreachable, says: "for 1m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				tries := 0
				l := hold.NewLink(pipeClient(t), func(context.Context, uint64) (*hold.Client, error) {
					tries++
					return nil, tc.fail
				})
				if tc.stop {
					l.Stop()
				}
				tc.r.Agent = "x"
				c, err := l.Relink(errors.New("dropped"), tc.r)
				if c != nil || err == nil || !strings.Contains(err.Error(), tc.says) || (tc.want != nil && !errors.Is(err, tc.want)) {
					t.Errorf("Relink = %v, %v; want an error saying %q (%v)", c, err, tc.says, tc.want)
				}
				if tries != tc.tries {
					t.Errorf("%d tries, want %d", tries, tc.tries)
				}
				l.Stop()
			})
		})
	}
}

// Stop cuts a relink's pause short, ends it, and tells the writers
// waiting for a new client that none comes.
func TestLinkStopEndsARelinkAndItsWaiters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := pipeClient(t)
		l := hold.NewLink(first, func(context.Context, uint64) (*hold.Client, error) { return nil, errUnreachable })
		_ = first.Close()
		relinked, wrote := make(chan error, 1), make(chan error, 1)
		go func() {
			_, err := l.Relink(errors.New("dropped"), hold.Relinking{Agent: "x"})
			relinked <- err
		}()
		go func() {
			_, err := l.Input(context.Background(), []byte("line"))
			wrote <- err
		}()
		synctest.Wait() // Relink pauses, Input waits
		begin := time.Now()
		l.Stop()
		if err := <-relinked; err == nil {
			t.Error("Relink succeeded after Stop")
		}
		if err := <-wrote; !errors.Is(err, hold.ErrDetached) {
			t.Errorf("Input after Stop = %v, want ErrDetached", err)
		}
		if took := time.Since(begin); took != 0 {
			t.Errorf("Relink ended %v after Stop, want at once", took)
		}
		if l.Await(first) != nil || !l.Stopped() {
			t.Error("Await after Stop gave a client")
		}
	})
}

// Without a redial (a holder on this machine) a lost connection is the
// writer's error at once, and Relink does not try.
func TestLinkWithoutRedial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := pipeClient(t)
		l := hold.NewLink(first, nil)
		_ = first.Close()
		if _, err := l.Input(context.Background(), []byte("line")); !errors.Is(err, hold.ErrDetached) {
			t.Errorf("Input = %v, want ErrDetached", err)
		}
		if l.Redials() {
			t.Error("Redials without a redial")
		}
		if _, err := l.Relink(hold.ErrDetached, hold.Relinking{Agent: "x"}); !errors.Is(err, hold.ErrDetached) {
			t.Errorf("Relink = %v", err)
		}
		l.Stop()
	})
}

// A reader's error that leaves the connection up (a malformed frame) makes
// the session relink all the same, and the client it replaces is read no
// more. That client is closed: a line waiting there for its ack goes again
// with its id over the new client (the holder writes each id once), instead
// of waiting for ever, even past Stop.
func TestLinkRelinkClosesTheReplacedClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := make(chan string, 2)
		first := holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto}, func(br *bufio.Reader, conn net.Conn) {
			line, _ := br.ReadString('\n')
			sent <- line
			// Its ack comes after a frame the client cannot read.
			_, _ = conn.Write([]byte("o notaseq x\na 1 5\n"))
			holdtest.Drain(br, conn)
		})
		second := holdtest.StandIn(t, hold.Welcome{Proto: hold.Proto, LastIn: 1}, func(br *bufio.Reader, conn net.Conn) {
			line, _ := br.ReadString('\n')
			sent <- line
			_, _ = conn.Write([]byte("a 1 5\n"))
			holdtest.Drain(br, conn)
		})
		l := hold.NewLink(first, func(context.Context, uint64) (*hold.Client, error) { return second, nil })
		type result struct {
			seq uint64
			err error
		}
		wrote := make(chan result, 1)
		go func() {
			seq, err := l.Input(context.Background(), []byte("line"))
			wrote <- result{seq, err}
		}()
		first1 := <-sent
		_, lost := first.Next() // the session's reader
		if lost == nil || errors.Is(lost, hold.ErrDetached) {
			t.Fatalf("Next = %v, want a malformed frame's error", lost)
		}
		c, err := l.Relink(lost, hold.Relinking{Agent: "x", From: 1})
		if err != nil {
			t.Fatal(err)
		}
		read := make(chan struct{})
		go func() {
			defer close(read)
			for {
				if _, err := c.Next(); err != nil {
					return
				}
			}
		}()
		synctest.Wait()
		select {
		case r := <-wrote:
			if r.err != nil || r.seq != 5 {
				t.Errorf("Input = %d, %v; want record 5", r.seq, r.err)
			}
			if again := <-sent; again != first1 {
				t.Errorf("sent again %q, want %q (the same id)", again, first1)
			}
		default:
			t.Error("Input waits for an ack on the replaced client")
			_ = first.Close() // for the bubble to end
			<-wrote
		}
		select {
		case <-first.Gone():
		default:
			t.Error("the replaced client is still open")
		}
		l.Stop()
		<-read
	})
}
