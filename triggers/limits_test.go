package triggers

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// What strangers cost: log lines, memory held by bodies, time.

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines(with string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, with) {
			out = append(out, line)
		}
	}
	return out
}

type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// 300 unsigned requests write a line for the first and a summary for the
// rest once the minute is over, as strangers on Telegram do.
func TestRefusalsAreSummed(t *testing.T) {
	var logs lockedBuffer
	clock := &manualClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	rec := &recorder{}
	base := serve(t, Config{Now: clock.Now, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Hooks: []Hook{{Name: "ci", Secret: secret}}}, rec.fire)
	for i := range 300 {
		if resp := post(t, base+"/hooks/ci", []byte("x"), ""); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request %d: %d, want 401", i, resp.StatusCode)
		}
	}
	if got := logs.lines("refused"); len(got) != 1 || !strings.Contains(got[0], "signature") {
		t.Fatalf("%d lines for 300 refusals in a minute, want 1:\n%s", len(got), strings.Join(got, "\n"))
	}
	clock.add(time.Minute)
	if resp := post(t, base+"/hooks/ci", []byte("x"), ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a minute later: %d", resp.StatusCode)
	}
	got := logs.lines("refused")
	if len(got) != 3 || !strings.Contains(got[1], "requests=299") || !strings.Contains(got[1], "signature") {
		t.Fatalf("after a minute, want the first line, a summary of the other 299 and a line for the new one:\n%s",
			strings.Join(got, "\n"))
	}
	if len(rec.got()) != 0 {
		t.Fatal("an unsigned request ran")
	}
}

// rawPost starts a signed POST of body on a connection of its own and
// sends only the first part bytes of the body.
func rawPost(t *testing.T, addr string, body []byte, part int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_, err = fmt.Fprintf(c, "POST /hooks/ci HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nX-Hub-Signature-256: %s\r\n\r\n%s",
		len(body), Sign(secret, body), body[:part])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// With MaxReading requests' bodies being read, the next get 503 and their
// connection closed at once, without waiting for their bodies (while the
// first still hold their places); the ones being read run.
func TestReadersBounded(t *testing.T) {
	const n, k = 2, 3
	rec := &recorder{}
	s, base := serveS(t, Config{MaxReading: n, ReadTimeout: 10 * time.Minute, Burst: 100,
		Hooks: []Hook{{Name: "ci", Secret: secret}}}, rec.fire)
	addr := strings.TrimPrefix(base, "http://")
	var slow []net.Conn
	var bodies [][]byte
	for i := range n {
		body := []byte(fmt.Sprintf("slow body %d", i))
		slow, bodies = append(slow, rawPost(t, addr, body, 4)), append(bodies, body)
	}
	deadline := time.Now().Add(time.Minute) // far beyond the cost of two local requests
	for len(s.reading) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d slow requests are being read", len(s.reading), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range k {
		// No byte of the body yet: a close with unread bytes would be a
		// reset, which may drop the answer before it is read.
		c := rawPost(t, addr, []byte(fmt.Sprintf("another slow body %d", i)), 0)
		c.SetReadDeadline(time.Now().Add(time.Minute)) // far below the server's read timeout
		answer, err := io.ReadAll(c)
		if err != nil || !strings.HasPrefix(string(answer), "HTTP/1.1 503") {
			t.Errorf("request %d beyond %d being read: %q %v, want 503 and the connection closed", i, n, answer, err)
		}
	}
	for i, c := range slow {
		if _, err := c.Write(bodies[i][4:]); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(time.Minute))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("slow request %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("slow request %d: %d, want 202", i, resp.StatusCode)
		}
	}
	if got := rec.got(); len(got) != n {
		t.Errorf("runs %q, want the %d slow ones", got, n)
	}
	if len(s.reading) != 0 {
		t.Errorf("%d places still taken", len(s.reading))
	}
}

// A body (or a header) that stops arriving loses its connection at the
// read deadline, and nothing runs.
func TestStalledRequestIsClosed(t *testing.T) {
	rec := &recorder{}
	base := serve(t, Config{ReadTimeout: 50 * time.Millisecond, Hooks: []Hook{{Name: "ci", Secret: secret}}}, rec.fire)
	addr := strings.TrimPrefix(base, "http://")

	c := rawPost(t, addr, []byte("a body that never ends"), 3)
	c.SetReadDeadline(time.Now().Add(time.Minute)) // far beyond the configured deadline
	answer, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("stalled body: the connection was not closed: %v", err)
	}
	if !strings.HasPrefix(string(answer), "HTTP/1.1 408") {
		t.Errorf("stalled body answered %q, want 408", answer)
	}

	h, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := io.WriteString(h, "POST /hooks/ci HTTP/1.1\r\nHo"); err != nil {
		t.Fatal(err)
	}
	h.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := io.ReadAll(h); err != nil {
		t.Fatalf("stalled header: the connection was not closed: %v", err)
	}
	if got := rec.got(); len(got) != 0 {
		t.Errorf("ran %q", got)
	}
}

// An address already taken is an error naming it, before any serving.
func TestListenTaken(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	s, err := New(Config{Listen: held.Addr().String(), Hooks: []Hook{{Name: "ci", Secret: secret}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err == nil || !strings.Contains(err.Error(), held.Addr().String()) {
		t.Fatalf("Listen on a taken address: %v, want an error naming it", err)
	}
}
