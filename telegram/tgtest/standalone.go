package tgtest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Standalone configures a fake run outside a test, by a program such as the load command.
type Standalone struct {
	// Middleware, if set, wraps the fake's HTTP handler, e.g. to time every call and read its answer.
	Middleware func(http.Handler) http.Handler
	// OnError receives what would fail a test (a press on a button that is not there). Default: kept, see
	// Server.StandaloneErrors.
	OnError func(msg string)
}

// NewStandalone starts a fake Bot API on 127.0.0.1 without a testing.TB. The caller must Close it. Await and
// AwaitMessage/AwaitCall need a test and panic here; use WaitFor.
func NewStandalone(cfg Standalone, opts ...Option) (*Server, error) {
	tb := &standaloneTB{onError: cfg.OnError}
	s := newServer(tb, opts...)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tgtest: listen: %w", err)
	}
	var h http.Handler = s
	if cfg.Middleware != nil {
		h = cfg.Middleware(h)
	}
	s.hs = &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	s.hs.Start()
	return s, nil
}

// StandaloneErrors returns the errors a standalone server kept (those OnError did not take).
func (s *Server) StandaloneErrors() []string {
	tb, ok := s.tb.(*standaloneTB)
	if !ok {
		return nil
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.errs...)
}

// standaloneTB stands in for a test: the server only reports through Helper, Errorf and Fatalf (the embedded
// nil TB satisfies the interface's unexported method; any other method would panic, and none is called).
type standaloneTB struct {
	testing.TB
	onError func(string)

	mu   sync.Mutex
	errs []string
}

func (t *standaloneTB) Helper() {}

func (t *standaloneTB) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if t.onError != nil {
		t.onError(msg)
		return
	}
	t.mu.Lock()
	t.errs = append(t.errs, msg)
	t.mu.Unlock()
}

func (t *standaloneTB) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}
