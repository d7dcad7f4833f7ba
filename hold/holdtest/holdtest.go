// Package holdtest has stand-in holders for tests of a held session's
// reader and link: a client over a pipe, served by a goroutine that says
// what the test needs it to, frame by frame.
package holdtest

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"testing"

	"github.com/untether/untether/hold"
)

// StandIn is a client of a stand-in holder over a pipe: the holder reads
// the hello, answers w, then serve has the connection (br reads past the
// hello); the holder's end closes when serve returns. Made in a synctest
// bubble, it blocks only on the bubble's channels.
func StandIn(t testing.TB, w hold.Welcome, serve func(br *bufio.Reader, conn net.Conn)) *hold.Client {
	t.Helper()
	bot, holder := net.Pipe()
	go func() {
		defer holder.Close()
		br := bufio.NewReader(holder)
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
		b, _ := json.Marshal(w)
		if _, err := holder.Write(append(b, '\n')); err != nil {
			return
		}
		serve(br, holder)
	}()
	c, err := hold.Attach(context.Background(), bot, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Drain reads what the client sends until it closes.
func Drain(br *bufio.Reader, _ net.Conn) {
	for {
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
	}
}

// Frames serves frames (each without its newline), then drops the
// connection (drop) or reads what the client sends until it closes.
func Frames(frames []string, drop bool) func(*bufio.Reader, net.Conn) {
	return func(br *bufio.Reader, conn net.Conn) {
		for _, f := range frames {
			if _, err := conn.Write([]byte(f + "\n")); err != nil {
				return
			}
		}
		if !drop {
			Drain(br, conn)
		}
	}
}
