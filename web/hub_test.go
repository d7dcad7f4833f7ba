package web

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/chat"
)

func textEv(key, text string) chat.Event {
	return chat.Event{Kind: chat.EvText, Key: key, Place: chat.Place{ChatID: 1}, Text: text}
}

// Observe never waits for a page: a page that never reads its wake-ups
// does not hold the conversation (synctest reports a goroutine blocked
// for ever as a deadlock), and a page that reads finds the latest state
// after each event regardless.
func TestHubObserveNeverBlocksOnASlowPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHub(time.Now)
		_, stopSlow := h.subscribe("k") // never read
		defer stopSlow()
		fast, stopFast := h.subscribe("k")
		defer stopFast()
		other, stopOther := h.subscribe("other")
		defer stopOther()
		for i := range 1000 {
			want := string(rune('a' + i%26))
			h.Observe(textEv("k", want))
			select {
			case <-fast:
			default:
				t.Fatalf("event %d: the reading page was not woken", i)
			}
			if v, _ := h.view("k"); v.Stream != want {
				t.Fatalf("event %d: the page reads %q, want %q", i, v.Stream, want)
			}
		}
		select {
		case <-other:
			t.Error("a page of another conversation was woken")
		default:
		}
	})
}

// A page that goes away is dropped: its wake-ups stop, and a server-sent
// events request whose browser left unsubscribes.
func TestHubDropsAPageThatLeft(t *testing.T) {
	h := newHub(time.Now)
	ch, stop := h.subscribe("k")
	stop()
	h.Observe(textEv("k", "after"))
	select {
	case <-ch:
		t.Error("a page that left was woken")
	default:
	}
	if n := len(h.pages); n != 0 {
		t.Errorf("%d pages kept, want 0", n)
	}

	r := newRig(t)
	c := client(t)
	r.signIn(t, c, alice)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.ts.URL+"/chat/1001/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := resp.Body.Read(buf); err != nil { // the first rendering: subscribed
		t.Fatal(err)
	}
	if openPages(r.s.hub) != 1 {
		t.Fatalf("an open events stream is %d pages, want 1", openPages(r.s.hub))
	}
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(time.Minute); openPages(r.s.hub) != 0; time.Sleep(5 * time.Millisecond) { // a hang's bound
		if time.Now().After(deadline) {
			t.Fatal("the page that left is still subscribed")
		}
	}
}

func openPages(h *hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pages)
}
