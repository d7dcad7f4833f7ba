package tgtest

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFailNext(t *testing.T) {
	s := New(t, WithChats(PrivateChat(alice)))
	msg := map[string]any{"chat_id": alice.ID, "text": "x"}
	s.FailNext("sendMessage", 1, TooManyRequests(7))
	s.FailNext("SENDMESSAGE", 1, Failure{Code: 500})
	s.FailNext("getMe", 1, BlockedByUser())

	wantRetryAfter(t, callJSON(t, s, "sendMessage", msg), 7)
	wantError(t, callJSON(t, s, "sendMessage", msg), 500, "Internal Server Error")
	mustOK(t, callJSON(t, s, "sendMessage", msg))
	wantError(t, callJSON(t, s, "getMe", nil), 403, "Forbidden: bot was blocked by the user")
	mustOK(t, callJSON(t, s, "getMe", nil))
	if n := len(s.Messages(alice.ID)); n != 1 {
		t.Fatalf("failed calls must not change state: %d messages", n)
	}
	calls := s.CallsTo("sendMessage")
	if len(calls) != 3 || calls[0].Status != 429 || calls[1].Description() != "Internal Server Error" || !calls[2].OK() {
		t.Fatalf("recorded %+v", calls)
	}
	s.FailNext("getUpdates", 1, Failure{Code: 502})
	wantError(t, callJSON(t, s, "getUpdates", nil), 502, "Bad Gateway")
	if s.RateLimited() != 0 {
		t.Fatal("injected 429s are not the rate limiter's")
	}
}

func TestFailWhen(t *testing.T) {
	grp := Group(-4001, "Team")
	s := New(t, WithChats(PrivateChat(alice), grp))
	stop := s.FailWhen(func(c Call) bool { return c.Method == "sendMessage" && c.Int64("chat_id") < 0 },
		Failure{Code: 502})
	wantError(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": grp.ID, "text": "x"}), 502, "Bad Gateway")
	wantError(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": grp.ID, "text": "y"}), 502, "Bad Gateway")
	mustOK(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": alice.ID, "text": "private passes"}))
	stop()
	mustOK(t, callJSON(t, s, "sendMessage", map[string]any{"chat_id": grp.ID, "text": "after stop"}))
}

func TestFailureRawBodyHangAndDrop(t *testing.T) {
	s := New(t)
	url := s.URL() + "/bot" + s.Token() + "/getMe"

	s.FailNext("getMe", 1, Failure{Code: 502, RawBody: "<html>502 Bad Gateway</html>"})
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 502 || string(body) != "<html>502 Bad Gateway</html>" || res.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("raw fault %d %q", res.StatusCode, body)
	}

	// POST: Go's client would silently retry an idempotent GET on a fresh connection.
	s.FailNext("getMe", 1, Failure{Drop: true})
	if res, err := http.Post(url, "application/json", strings.NewReader("{}")); err == nil {
		res.Body.Close()
		t.Fatal("dropped call got an answer")
	}

	s.FailNext("getMe", 1, Failure{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hung call: %v, want the client's deadline", err)
	}
	calls := s.CallsTo("getMe")
	if len(calls) != 3 || calls[1].Status != 0 || calls[2].Status != 0 || !strings.Contains(string(calls[0].Response), "502") {
		t.Fatalf("recorded %+v", calls)
	}
	mustOK(t, callJSON(t, s, "getMe", nil))
}

func TestCloseReleasesHungCall(t *testing.T) {
	s := New(t)
	s.FailNext("getMe", 1, Failure{Hang: true})
	done := make(chan error, 1)
	go func() {
		res, err := http.Get(s.URL() + "/bot" + s.Token() + "/getMe")
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	s.AwaitCall(10*time.Second, "getMe", nil)
	s.Close()
	<-done // returns at all: Close did not wait forever on the hung handler
}
