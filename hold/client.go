package hold

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ErrGone is returned when the holder is not there (its socket is gone or
// refuses): the session ended while no bot was attached.
var ErrGone = errors.New("the holder is gone")

// ErrNoWelcome is wrapped, with ErrGone, when the stream ended or stalled
// before the holder's welcome: over a socket of this machine the holder is
// gone, through a bridge (DialVia) the connection may only have dropped.
var ErrNoWelcome = errors.New("no welcome")

// ErrDetached is returned by calls on a client whose connection ended.
var ErrDetached = errors.New("detached from the holder")

// Frame is one thing the holder sent (see proto.go).
type Frame struct {
	Kind   byte   // 'o', 'i' (replayed input), 'r' (replay done), 'e', 'x'
	Record Record // o, i
	Seq    uint64 // r: the last record of the replay
	Stderr string // e
	Exit   *Exit  // x
}

// Client is the bot's end of a holder: one reader (Next) and any number of
// writers.
type Client struct {
	conn    io.ReadWriteCloser
	br      *bufio.Reader
	Welcome Welcome

	wmu sync.Mutex
	bw  *bufio.Writer

	mu     sync.Mutex
	nextIn uint64
	acks   map[uint64]chan uint64
	gone   chan struct{}
	once   sync.Once
}

// Dial attaches to the holder whose socket is sock; the replay starts at
// record from (0: none).
func Dial(ctx context.Context, sock, secret string, from uint64) (*Client, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrGone, err)
	}
	cl, err := Attach(ctx, c, secret, from)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return cl, nil
}

// Attach speaks the protocol over conn: a socket, or a stream that a
// command on another machine bridges to one.
func Attach(ctx context.Context, conn io.ReadWriteCloser, secret string, from uint64) (*Client, error) {
	c := &Client{conn: conn, br: bufio.NewReaderSize(conn, 64<<10), bw: bufio.NewWriterSize(conn, 16<<10),
		acks: map[uint64]chan uint64{}, gone: make(chan struct{})}
	b, _ := json.Marshal(Hello{Proto: Proto, Secret: secret, From: from})
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return nil, fmt.Errorf("%w: hello: %v", ErrGone, err)
	}
	type result struct {
		w   Welcome
		err error
	}
	got := make(chan result, 1)
	go func() {
		line, err := readLine(c.br)
		if err != nil {
			got <- result{err: fmt.Errorf("%w: %w: %v", ErrGone, ErrNoWelcome, err)}
			return
		}
		var w Welcome
		if err := json.Unmarshal(line, &w); err != nil {
			got <- result{err: fmt.Errorf("decode welcome: %w", err)}
			return
		}
		got <- result{w: w}
	}()
	ctx, cancel := context.WithTimeout(ctx, helloWait)
	defer cancel()
	select {
	case r := <-got:
		if r.err != nil {
			return nil, r.err
		}
		if r.w.Error != "" && r.w.Proto != Proto {
			return nil, &VersionError{Holder: r.w.Proto}
		}
		if r.w.Error != "" {
			return nil, fmt.Errorf("%w: refused: %s", ErrGone, r.w.Error)
		}
		c.Welcome, c.nextIn = r.w, r.w.LastIn
		return c, nil
	case <-ctx.Done():
		_ = conn.Close()
		<-got
		return nil, fmt.Errorf("%w: %w: %v", ErrGone, ErrNoWelcome, ctx.Err())
	}
}

// Next returns the next frame other than an ack (acks go to the Input
// calls waiting for them). It must be called by one goroutine, steadily:
// Input waits for it to read the ack.
func (c *Client) Next() (Frame, error) {
	for {
		line, err := readLine(c.br)
		if err != nil {
			c.detach()
			return Frame{}, fmt.Errorf("%w: %v", ErrDetached, err)
		}
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case kindOut, kindIn:
			r, err := parseRecord(line)
			if err != nil {
				return Frame{}, err
			}
			r.Line = append([]byte(nil), r.Line...)
			return Frame{Kind: line[0], Record: r}, nil
		case kindReplay:
			seq, err := parseUint(line[2:])
			if err != nil {
				return Frame{}, errFrame
			}
			return Frame{Kind: kindReplay, Seq: seq}, nil
		case kindAck:
			var id, seq uint64
			if _, err := fmt.Sscanf(string(line[2:]), "%d %d", &id, &seq); err != nil {
				return Frame{}, errFrame
			}
			c.mu.Lock()
			ch := c.acks[id]
			delete(c.acks, id)
			c.mu.Unlock()
			if ch != nil {
				ch <- seq
			}
		case kindErr:
			s, err := strconv.Unquote(string(line[2:]))
			if err != nil {
				return Frame{}, errFrame
			}
			return Frame{Kind: kindErr, Stderr: s}, nil
		case kindExit:
			var ex Exit
			if err := json.Unmarshal(line[2:], &ex); err != nil {
				return Frame{}, errFrame
			}
			return Frame{Kind: kindExit, Exit: &ex}, nil
		}
	}
}

// Input writes line to the CLI's stdin through the holder and returns its
// record once the holder has written it.
func (c *Client) Input(ctx context.Context, line []byte) (uint64, error) {
	return c.InputID(ctx, c.NextID(), line)
}

// NextID numbers the next input (after the holder's Welcome.LastIn).
func (c *Client) NextID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextIn++
	return c.nextIn
}

// InputID is Input with the id the line was given, by this client or one
// whose connection was lost before the ack: the holder writes each id
// once, and acks the last one written again with its record.
func (c *Client) InputID(ctx context.Context, id uint64, line []byte) (uint64, error) {
	ch := make(chan uint64, 1)
	c.mu.Lock()
	c.nextIn = max(c.nextIn, id)
	c.acks[id] = ch
	c.mu.Unlock()
	frame := append([]byte("i "+strconv.FormatUint(id, 10)+" "), line...)
	if err := c.send(frame); err != nil {
		return 0, err
	}
	select {
	case seq := <-ch:
		if seq == 0 {
			return 0, errors.New("the holder could not write to claude")
		}
		return seq, nil
	case <-c.gone:
		return 0, ErrDetached
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// CloseInput closes the CLI's stdin.
func (c *Client) CloseInput() error { return c.send([]byte("c")) }

// Signal signals the CLI's process group.
func (c *Client) Signal(sig syscall.Signal) error {
	return c.send([]byte("k " + strconv.Itoa(int(sig))))
}

// Trim tells the holder records up to seq were delivered.
func (c *Client) Trim(seq uint64) error { return c.send([]byte("t " + strconv.FormatUint(seq, 10))) }

// Quit ends the session: the holder removes its files once the CLI has
// exited.
func (c *Client) Quit() error { return c.send([]byte("q")) }

// Close detaches: the holder and the CLI go on.
func (c *Client) Close() error {
	c.detach()
	return nil
}

// Gone is closed once the connection has ended.
func (c *Client) Gone() <-chan struct{} { return c.gone }

func (c *Client) detach() {
	c.once.Do(func() {
		_ = c.conn.Close()
		close(c.gone)
	})
}

func (c *Client) send(frame []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.gone:
		return ErrDetached
	default:
	}
	if nc, ok := c.conn.(net.Conn); ok {
		_ = nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	}
	_, err := c.bw.Write(append(frame, '\n'))
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		c.detach()
		return fmt.Errorf("%w: %v", ErrDetached, err)
	}
	return nil
}
