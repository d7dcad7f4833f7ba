// Package speaktest has the real parts speech tests run against: Debian's
// espeak-ng piped through opusenc as the local speech command, and a fake
// OpenAI-compatible speech server on 127.0.0.1 that answers with it.
package speaktest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Espeak is the local speech command the docs show: text on stdin,
// OGG/Opus on stdout.
var Espeak = []string{"sh", "-c", "espeak-ng --stdout | opusenc --quiet - -"}

// NeedEspeak skips the test when espeak-ng or opusenc is missing, or
// fails it under UNTETHER_TEST_SPEECH=1 (CI installs them: .ci/run).
func NeedEspeak(t testing.TB) {
	t.Helper()
	for _, p := range []string{"espeak-ng", "opusenc"} {
		if _, err := exec.LookPath(p); err != nil {
			if os.Getenv("UNTETHER_TEST_SPEECH") == "1" {
				t.Fatalf("%s is missing (UNTETHER_TEST_SPEECH=1): apt-get install espeak-ng opus-tools", p)
			}
			t.Skipf("%s is missing: apt-get install espeak-ng opus-tools", p)
		}
	}
}

// Say runs Espeak on text and returns its OGG/Opus.
func Say(t testing.TB, text string) []byte {
	t.Helper()
	NeedEspeak(t)
	cmd := exec.CommandContext(context.Background(), Espeak[0], Espeak[1:]...)
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("espeak-ng | opusenc: %v", err)
	}
	return out
}

// Request is one call the fake speech server got.
type Request struct {
	Path, Auth string
	Body       map[string]string // the JSON body
}

// Server is a fake OpenAI-compatible speech API: POST /v1/audio/speech.
type Server struct {
	URL string // the API's base URL, …/v1
	mu  sync.Mutex
	got []Request
	// Answer makes the audio of a request: status and body. The default
	// speaks the input with Espeak.
	Answer func(r Request) (int, []byte)
}

// NewServer starts a fake speech server for the test on 127.0.0.1.
func NewServer(t testing.TB) *Server {
	s := &Server{}
	s.Answer = func(r Request) (int, []byte) { return http.StatusOK, Say(t, r.Body["input"]) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := Request{Path: r.URL.Path, Auth: r.Header.Get("Authorization")}
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &req.Body); err != nil || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"want a POST of JSON"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.got = append(s.got, req)
		answer := s.Answer
		s.mu.Unlock()
		status, body := answer(req)
		w.Header().Set("Content-Type", "audio/ogg")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/v1"
	return s
}

// SetAnswer replaces how the server answers.
func (s *Server) SetAnswer(f func(r Request) (int, []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Answer = f
}

// Requests are the calls so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.got...)
}
