package tgtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// MemoryURL is the server URL to give a client that reaches the fake through Transport. Its host is reserved
// (.invalid), so a request that leaves the transport by mistake cannot reach anything.
const MemoryURL = "http://tgtest.invalid"

// InMemory serves only through Transport: no listener is started and URL panics. A test in a testing/synctest
// bubble needs it: a loopback listener's goroutines wait in the network, which synctest never counts as idle,
// so the bubble's clock would never move.
func InMemory() Option { return func(s *Server) { s.inMemory = true } }

// errDropped is what a client sees of a Failure{Drop: true} served in memory: the connection closed before
// any answer, as Go's transport reports it.
var errDropped = fmt.Errorf("tgtest: connection dropped: %w", io.ErrUnexpectedEOF)

// Transport returns an http.RoundTripper that serves the fake's API in memory, with the same answers, faults
// and held getUpdates as over HTTP. Requests must go to MemoryURL. Inside a synctest bubble everything it waits
// on is a channel, so a held getUpdates is idle in synctest's sense and its timeout runs on the bubble's clock.
func (s *Server) Transport() http.RoundTripper { return memTransport{s} }

type memTransport struct{ s *Server }

func (t memTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != strings.TrimPrefix(MemoryURL, "http://") {
		if req.Body != nil {
			_ = req.Body.Close() // the RoundTripper contract: close the body, even on errors
		}
		return nil, fmt.Errorf("tgtest: the in-memory transport serves %s, not %s", MemoryURL, req.URL.Host)
	}
	// The handler sees a server-side request: a body that is never nil and the path as RequestURI.
	sreq := req.Clone(req.Context())
	sreq.RequestURI = req.URL.RequestURI()
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	w := &memWriter{header: http.Header{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer sreq.Body.Close()
		t.s.ServeHTTP(w, sreq)
	}()
	// Like a real connection, the client stops waiting when its context ends, even if the handler has not.
	select {
	case <-done:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	if w.dropped {
		return nil, errDropped
	}
	if w.status == 0 {
		if err := req.Context().Err(); err != nil {
			return nil, err // a held call released by the client's leaving: no answer was written
		}
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// memWriter collects one answer. The handler runs on one goroutine and the transport reads the fields only
// after it returned, so they need no lock.
type memWriter struct {
	header  http.Header
	status  int
	body    bytes.Buffer
	dropped bool
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *memWriter) Write(p []byte) (int, error) {
	if w.dropped {
		return 0, errors.New("tgtest: write after drop")
	}
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// drop closes the "connection" without an answer (Failure.Drop).
func (w *memWriter) drop() { w.dropped = true }
