package web

import (
	"bufio"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/untether/untether/chat"
)

// The live stream (server-sent events) is a request like the others: it
// must end when its session does, and the conversation's text must not
// be able to change how the browser reads the stream.

// openStream opens key's event stream for c and reads its first message.
func (r *rig) openStream(t *testing.T, c *http.Client, key string) (*bufio.Reader, func()) {
	t.Helper()
	resp, err := c.Get(r.ts.URL + "/chat/" + key + "/events")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("events: %d", resp.StatusCode)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := nextMessage(br); err != nil {
		t.Fatalf("the first message: %v", err)
	}
	return br, func() { resp.Body.Close() }
}

// nextMessage reads the raw bytes of one event (up to its blank line).
func nextMessage(br *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			return b.String(), err
		}
		if line == "\n" {
			return b.String(), nil
		}
	}
}

func answer(key string, chatID int64, text string) chat.Event {
	return chat.Event{Kind: chat.EvAnswer, Key: key, Place: chat.Place{ChatID: chatID}, Final: &chat.Final{Result: text}}
}

// /web logout ends every session "at once": a page left open must not go
// on receiving the conversation.
func TestStreamEndsAtLogout(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, alice)
	key := strconv.FormatInt(alice, 10)
	br, closeStream := r.openStream(t, c, key)
	defer closeStream()

	r.s.Logout(alice) // what /web logout does
	r.s.hub.Observe(answer(key, alice, "said after the logout"))
	msg, err := nextMessage(br)
	if strings.Contains(msg, "said after the logout") {
		t.Errorf("a signed-out page still receives the conversation: %q", msg)
	}
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		t.Errorf("the stream after logout: %v, want it ended", err)
	}
}

// A user removed from the allowlist is out at once, an open page too.
func TestStreamEndsForARemovedUser(t *testing.T) {
	r := newRig(t)
	var removed atomic.Bool
	r.s.cfg.Allowed = func(id int64) bool { return (id == bob && !removed.Load()) || id == alice }
	c := client(t)
	r.signIn(t, c, bob)
	key := strconv.FormatInt(bob, 10)
	br, closeStream := r.openStream(t, c, key)
	defer closeStream()

	removed.Store(true)
	r.s.hub.Observe(answer(key, bob, "said after the removal"))
	msg, err := nextMessage(br)
	if strings.Contains(msg, "said after the removal") {
		t.Errorf("a removed user's page still receives the conversation: %q", msg)
	}
	if err != io.EOF && err != io.ErrUnexpectedEOF {
		t.Errorf("the stream after removal: %v, want it ended", err)
	}
}

// sseLine is a line ending as the event-stream format reads it: CRLF, a
// lone CR or a lone LF each end a line.
var sseLine = regexp.MustCompile("\r\n|\r|\n")

// An answer (which a planted file can steer) holding a carriage return
// must not add fields to the stream: a browser ends a line at a lone CR,
// so "\revent: x" would turn the live view's messages into events the
// page does not listen to, and it would stop updating.
func TestStreamTextCannotAddFields(t *testing.T) {
	r := newRig(t)
	c := client(t)
	r.signIn(t, c, alice)
	key := strconv.FormatInt(alice, 10)
	br, closeStream := r.openStream(t, c, key)
	defer closeStream()

	r.s.hub.Observe(answer(key, alice, "fine\revent: hidden\rretry: 999999\r\nid: x\rdata: more"))
	msg, err := nextMessage(br)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range sseLine.Split(strings.TrimSuffix(msg, "\n\n"), -1) {
		if !strings.HasPrefix(line, "data:") {
			t.Errorf("the stream has a line that is not data: %q (in %q)", line, msg)
		}
	}
}
