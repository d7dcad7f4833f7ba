package hold

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/untether/untether/host"
)

// A bridge reaches a holder on another machine: `untether hold bridge`,
// started there through the host (host/ssh runs it over the multiplexed
// connection), joins its stdin and stdout to the holder's socket, named on
// stdin's first line. The protocol is a byte stream, so a Client speaks
// it through the bridge as through the socket. When the connection drops,
// the bridge ends, the holder sees its client leave (as when a bot stops),
// and a new bridge attaches again with a replay.

// BridgeArg is the argument after `hold` that makes it a bridge.
const BridgeArg = "bridge"

// Command is `untether hold ARGS`: the holder (Main), or with BridgeArg
// a bridge to one (BridgeMain).
func Command(args []string, in io.Reader, out io.WriteCloser) int {
	if len(args) > 0 && args[0] == BridgeArg {
		return BridgeMain(in, out)
	}
	return Main(in, out)
}

// BridgeMain is `untether hold bridge`. A socket that cannot be dialled
// is answered with a welcome refusing the client (the holder is gone), so
// that the bot tells it from a connection that dropped.
func BridgeMain(in io.Reader, out io.Writer) int {
	br := bufio.NewReader(in)
	sock, err := br.ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "untether hold bridge: the socket's path:", err)
		return 2
	}
	conn, err := net.DialTimeout("unix", strings.TrimSuffix(sock, "\n"), 5*time.Second)
	if err != nil {
		b, _ := json.Marshal(Welcome{Proto: Proto, Error: "the holder is gone: " + err.Error()})
		_, _ = out.Write(append(b, '\n'))
		return 3
	}
	go func() {
		_, _ = io.Copy(conn, br)
		_ = conn.(*net.UnixConn).CloseWrite() // the bot detached: the holder sees it leave
	}()
	_, _ = io.Copy(out, conn)
	return 0
}

// DialVia attaches to the holder of handle on h through a bridge: self is
// the untether binary there. The replay starts at record from (0: none).
// A holder that is gone is ErrGone (its bridge said so); a connection that
// failed or dropped before the welcome is ErrNoWelcome too, or the host's
// error (host.ErrUnreachable): worth trying again.
func DialVia(ctx context.Context, h host.Host, self string, handle Handle, from uint64) (*Client, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("bridge pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("bridge pipe: %w", err)
	}
	proc, err := h.Start(context.WithoutCancel(ctx), host.Cmd{Path: self, Args: []string{"hold", BridgeArg},
		Env: []string{}, Stdin: inR, Stdout: outW, Dir: "/"})
	_ = inR.Close()
	_ = outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start the bridge to the holder: %w", err)
	}
	s := &bridgeStream{in: inW, out: outR, proc: proc}
	go s.reap()
	if _, err := io.WriteString(inW, handle.Sock()+"\n"); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("%w: %w: the bridge: %v", ErrGone, ErrNoWelcome, err)
	}
	c, err := Attach(ctx, s, handle.Secret, from)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return c, nil
}

// Transient says whether err, from DialVia, may pass: the connection, not
// the holder.
func Transient(err error) bool {
	var verr *VersionError
	if err == nil || errors.As(err, &verr) {
		return false
	}
	return !errors.Is(err, ErrGone) || errors.Is(err, ErrNoWelcome) || errors.Is(err, host.ErrUnreachable)
}

// bridgeStream is the bot's end of a bridge: its stdin and stdout.
type bridgeStream struct {
	in   *os.File
	out  *os.File
	proc host.Process
	once sync.Once
}

func (s *bridgeStream) Read(p []byte) (int, error)  { return s.out.Read(p) }
func (s *bridgeStream) Write(p []byte) (int, error) { return s.in.Write(p) }

// Close ends the stream: the bridge sees its stdin end and leaves the
// holder, and whatever it writes after is not read.
func (s *bridgeStream) Close() error {
	s.once.Do(func() {
		_ = s.in.Close()
		_ = s.out.Close()
	})
	return nil
}

// reap waits for the bridge. What it wrote before it ended is still read
// (then EOF); a write after is an error (EPIPE).
func (s *bridgeStream) reap() { _, _ = s.proc.Wait() }
