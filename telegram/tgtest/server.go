// Package tgtest is a fake Telegram Bot API server for tests: real HTTP on 127.0.0.1 or an in-memory
// http.RoundTripper (for testing/synctest), Telegram-shaped answers and errors, per-chat message state,
// scripted updates, fault injection and an optional rate limiter.
package tgtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is the fake Bot API. All methods are safe for concurrent use.
type Server struct {
	tb         testing.TB
	hs         *httptest.Server
	token      string
	bot        User
	now        func() time.Time
	strictHTML bool
	inMemory   bool // InMemory: no listener, Transport only

	done      chan struct{} // closed by Close: releases held getUpdates and hung calls
	closeOnce sync.Once

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every state change; see WaitFor
	calls    []Call
	faults   faults
	limiter  *rateLimiter
	updates  updateQueue
	chats    map[int64]*chatState
	cbs      callbacks
	cmds     map[string][]BotCommand
	webhook  string // set by SetWebhook; getUpdates refuses to work while set
	files    map[string]*storedFile
	localDir string // LocalMode
	albums   int64  // media groups the bot sent, for their ids
	noRich   bool   // RefuseRich: the rich methods are unknown

	privateTopics bool // WithPrivateTopics
}

// Option configures a Server.
type Option func(*Server)

// WithToken sets the bot token; the bot id is the number before ':'. Default "7000000001:AAtgtest-fake-token".
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithBot sets what getMe answers and what bot messages carry as "from". The token keeps its own id.
func WithBot(u User) Option {
	return func(s *Server) {
		u.IsBot = true
		s.bot = u
	}
}

// WithClock sets the time source for message dates, call times, rate limits and callback expiry.
// getUpdates long polls still wait on the time package's clock (synctest's in a bubble), as the bot's client does.
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithLenientHTML accepts a stray '&' the way Telegram does instead of refusing it (see ParseHTML).
func WithLenientHTML() Option { return func(s *Server) { s.strictHTML = false } }

// WithRateLimits turns on the rate limiter (see RateLimits and DefaultRateLimits).
func WithRateLimits(l RateLimits) Option { return func(s *Server) { s.limiter = newRateLimiter(l) } }

// WithChats makes chats known before any update mentions them, as if the bot had been added to them.
func WithChats(chats ...Chat) Option {
	return func(s *Server) {
		for _, c := range chats {
			s.chatLocked(c)
		}
	}
}

// New starts a fake Bot API on 127.0.0.1 (none with InMemory) and closes it when the test ends. Its Transport
// serves it without the network either way.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := newServer(tb, opts...)
	if !s.inMemory {
		s.hs = httptest.NewServer(s)
	}
	tb.Cleanup(s.Close)
	return s
}

// newServer builds the state without a listener, so in-package tests can drive ServeHTTP inside synctest.
func newServer(tb testing.TB, opts ...Option) *Server {
	s := &Server{
		tb:         tb,
		token:      "7000000001:AAtgtest-fake-token",
		bot:        User{ID: 7000000001, IsBot: true, FirstName: "Test Bot", Username: "tgtest_bot"},
		now:        time.Now,
		strictHTML: true,
		done:       make(chan struct{}),
		changed:    make(chan struct{}),
		chats:      map[int64]*chatState{},
		cmds:       map[string][]BotCommand{},
	}
	s.updates.init()
	s.cbs.init()
	for _, o := range opts {
		o(s)
	}
	if id, ok := botIDFromToken(s.token); ok {
		s.bot.ID = id
	}
	return s
}

func botIDFromToken(token string) (int64, bool) {
	head, _, ok := strings.Cut(token, ":")
	if !ok {
		return 0, false
	}
	var id int64
	if _, err := fmt.Sscan(head, &id); err != nil {
		return 0, false
	}
	return id, true
}

// URL is the server root to pass as the bot library's server URL; it appends /bot<token>/<method>. A server
// made InMemory has none: give its clients MemoryURL and Transport.
func (s *Server) URL() string {
	if s.hs == nil {
		panic("tgtest: an InMemory server has no URL; use MemoryURL with its Transport")
	}
	return s.hs.URL
}

// Token is the only token the server accepts.
func (s *Server) Token() string { return s.token }

// Bot is the bot's own user, as getMe answers.
func (s *Server) Bot() User { return s.bot }

// Close releases held getUpdates and hung calls, then stops the listener. Safe to call twice.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		if s.hs != nil {
			s.hs.Close()
		}
	})
}

// notifyLocked wakes every WaitFor and held getUpdates. Callers hold s.mu.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// WaitFor returns once cond is true, re-checking after every change of the server's state (a call served, an
// update added), or fails when ctx ends. cond runs without the server's lock and may call any of its methods.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("tgtest: wait: %w", ctx.Err())
		}
	}
}

// Await is WaitFor with a timeout that fails the test given to New (Fatalf) when cond never holds. Call it from
// that test's goroutine only.
func (s *Server) Await(timeout time.Duration, what string, cond func() bool) {
	s.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := s.WaitFor(ctx, cond); err != nil {
		s.tb.Fatalf("tgtest: gave up after %v waiting for %s", timeout, what)
	}
}

// AwaitMessage waits until a bot message in chatID satisfies pred (nil: any) and returns it.
func (s *Server) AwaitMessage(timeout time.Duration, chatID int64, pred func(Message) bool) Message {
	s.tb.Helper()
	var found Message
	s.Await(timeout, fmt.Sprintf("a matching message in chat %d", chatID), func() bool {
		for _, m := range s.Messages(chatID) {
			if pred == nil || pred(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// AwaitCall waits until a call to method (case-insensitive) satisfies pred (nil: any) and returns the first one.
func (s *Server) AwaitCall(timeout time.Duration, method string, pred func(Call) bool) Call {
	s.tb.Helper()
	var found Call
	s.Await(timeout, fmt.Sprintf("a matching %s call", method), func() bool {
		for _, c := range s.CallsTo(method) {
			if pred == nil || pred(c) {
				found = c
				return true
			}
		}
		return false
	})
	return found
}

// Calls returns every call served so far, in the order their answers were decided.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallsTo returns the calls of one method (case-insensitive).
func (s *Server) CallsTo(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if strings.EqualFold(c.Method, method) {
			out = append(out, c)
		}
	}
	return out
}

// apiError is a Bot API refusal.
type apiError struct {
	code        int
	description string
	retryAfter  int
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{code: http.StatusBadRequest, description: "Bad Request: " + fmt.Sprintf(format, args...)}
}

func errorBody(e *apiError) []byte {
	body := map[string]any{"ok": false, "error_code": e.code, "description": e.description}
	if e.retryAfter > 0 {
		body["parameters"] = map[string]int{"retry_after": e.retryAfter}
	}
	b, _ := json.Marshal(body) // a map of plain values always marshals
	return b
}

func resultBody(result any) ([]byte, error) {
	raw, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("tgtest: marshal result: %w", err)
	}
	return json.Marshal(struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
	}{true, raw})
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client may be gone; nothing to tell it then
}
