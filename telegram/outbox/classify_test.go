package outbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"syscall"
	"testing"
	"time"

	"github.com/go-telegram/bot"
)

func TestClassify(t *testing.T) {
	tmr := &bot.TooManyRequestsError{Message: "too many requests, Too Many Requests: retry after 7", RetryAfter: 7}
	cases := []struct {
		name string
		err  error
		want verdict
		wait time.Duration
	}{
		{"nil", nil, vSuccess, 0},
		{"not modified", fmt.Errorf("%w, Bad Request: message is not modified: specified new message content", bot.ErrorBadRequest), vSuccess, 0},
		{"429 typed", tmr, vRetryWait, 7 * time.Second},
		{"429 wrapped", fmt.Errorf("edit progress: %w", tmr), vRetryWait, 7 * time.Second},
		{"429 zero hint", &bot.TooManyRequestsError{RetryAfter: 0}, vRetryWait, time.Second},
		{"429 text only", errors.New("Too Many Requests: retry after 35"), vRetryWait, 35 * time.Second},
		{"429 sentinel", fmt.Errorf("%w, flood", bot.ErrorTooManyRequests), vRetryWait, time.Second},
		{"502", errors.New("error response from telegram for method sendMessage, 502 Bad Gateway"), vBackoff, 0},
		{"500", fmt.Errorf("send: %w", errors.New("error response from telegram for method editMessageText, 500 Internal Server Error")), vBackoff, 0},
		{"other status", errors.New("error response from telegram for method sendMessage, 420 Flood"), vFail, 0},
		{"conn reset", fmt.Errorf("error do request for method sendMessage, %w", &url.Error{Op: "Post", URL: "x", Err: syscall.ECONNRESET}), vBackoff, 0},
		{"dial", &url.Error{Op: "Post", URL: "x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, vBackoff, 0},
		{"bad scheme", &url.Error{Op: "Post", URL: "x", Err: errors.New("unsupported protocol scheme")}, vFail, 0},
		{"body cut", fmt.Errorf("error read response body for method sendMessage, %w", io.ErrUnexpectedEOF), vBackoff, 0},
		{"proxy html", errors.New("error decode response body for method sendMessage, <html>, invalid character '<'"), vBackoff, 0},
		{"attempt timeout", fmt.Errorf("do: %w", context.DeadlineExceeded), vBackoff, 0},
		{"canceled", context.Canceled, vFail, 0},
		{"bad request", fmt.Errorf("%w, Bad Request: can't parse entities", bot.ErrorBadRequest), vFail, 0},
		{"forbidden", fmt.Errorf("%w, Forbidden: bot was blocked by the user", bot.ErrorForbidden), vFail, 0},
		{"migrate", &bot.MigrateError{Message: "bad request: group chat was upgraded", MigrateToChatID: -100}, vFail, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, wait := classify(c.err)
			if got != c.want || wait != c.wait {
				t.Fatalf("classify(%v) = %v, %v; want %v, %v", c.err, got, wait, c.want, c.wait)
			}
		})
	}
}

// TestClassifyRealClientErrors runs the real go-telegram/bot client against a
// local fake API, so the classification follows the library's actual errors.
func TestClassifyRealClientErrors(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   verdict
		wait   time.Duration
	}{
		{"429", 429, `{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 12","parameters":{"retry_after":12}}`, vRetryWait, 12 * time.Second},
		{"502", 502, `{"ok":false,"error_code":502,"description":"Bad Gateway"}`, vBackoff, 0},
		{"html 502", 502, `<html>bad gateway</html>`, vBackoff, 0},
		{"400", 400, `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities"}`, vFail, 0},
		{"not modified", 400, `{"ok":false,"error_code":400,"description":"Bad Request: message is not modified"}`, vSuccess, 0},
		{"403", 403, `{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}`, vFail, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				_, _ = io.WriteString(w, c.body)
			}))
			defer srv.Close()
			b, err := bot.New("1:test", bot.WithSkipGetMe(), bot.WithServerURL(srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			_, callErr := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: 1, Text: "x"})
			if callErr == nil {
				t.Fatal("want an error from the fake API")
			}
			got, wait := classify(callErr)
			if got != c.want || wait != c.wait {
				t.Fatalf("classify(%v) = %v, %v; want %v, %v", callErr, got, wait, c.want, c.wait)
			}
		})
	}

	t.Run("connection refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		addr := srv.URL
		srv.Close() // nothing listens there any more
		b, err := bot.New("1:test", bot.WithSkipGetMe(), bot.WithServerURL(addr))
		if err != nil {
			t.Fatal(err)
		}
		_, callErr := b.SendMessage(t.Context(), &bot.SendMessageParams{ChatID: 1, Text: "x"})
		if got, _ := classify(callErr); got != vBackoff {
			t.Fatalf("classify(%v) = %v, want backoff", callErr, got)
		}
	})
}

func TestBackoffBounds(t *testing.T) {
	minD, maxD := 500*time.Millisecond, 30*time.Second
	for attempt := 1; attempt <= 12; attempt++ {
		nominal := min(minD<<(attempt-1), maxD)
		for range 50 {
			d := Backoff(attempt, minD, maxD)
			if d < nominal/2 || d > nominal {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", attempt, d, nominal/2, nominal)
			}
		}
	}
}
