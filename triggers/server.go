// Package triggers is the HTTP side of triggered runs: POST /hooks/NAME
// with a body signed as GitHub signs its webhooks (X-Hub-Signature-256:
// sha256=HMAC-SHA256(secret, body) in hex) hands the body to the bot. It
// checks everything a stranger could send before the bot sees a byte:
// the name, the size, the signature (in constant time), then a rate per
// trigger. It knows no Telegram types: what a run is, is the bot's.
package triggers

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults of Config.
const (
	DefaultMaxBody = 64 << 10
	DefaultBurst   = 5
	DefaultRefill  = time.Minute
)

// Hook is one [triggers.NAME] entry: where its runs go and its secret.
type Hook struct {
	Name   string
	ChatID int64
	Thread int    // a forum topic, 0 for none
	Prompt string // the owner's text; {{body}} marks where the body goes
	Secret []byte // from the environment variable secret_env names; never logged
}

// Fire starts a run of h with body (already checked). It returns ErrBusy
// when the chat has as many triggered runs queued as it may.
type Fire func(ctx context.Context, h Hook, body []byte) error

// ErrBusy is Fire's answer when runs of the trigger are queued to the limit.
var ErrBusy = errors.New("too many triggered runs queued")

// Config is the server's settings.
type Config struct {
	Listen  string // host:port; the server is off when it is empty
	Hooks   []Hook
	MaxBody int64         // bytes; larger bodies get 413 (default DefaultMaxBody)
	Burst   int           // signed requests a trigger may send back to back (default DefaultBurst)
	Refill  time.Duration // then one more per Refill (default DefaultRefill)
	Log     *slog.Logger
}

// Server answers the hooks.
type Server struct {
	cfg   Config
	hooks map[string]*hook
}

type hook struct {
	Hook
	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// New checks cfg and makes a server.
func New(cfg Config) (*Server, error) {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.Refill <= 0 {
		cfg.Refill = DefaultRefill
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, hooks: map[string]*hook{}}
	for _, h := range cfg.Hooks {
		if len(h.Secret) == 0 {
			return nil, fmt.Errorf("trigger %q: empty secret", h.Name)
		}
		if _, dup := s.hooks[h.Name]; dup {
			return nil, fmt.Errorf("trigger %q: named twice", h.Name)
		}
		s.hooks[h.Name] = &hook{Hook: h, tokens: float64(cfg.Burst)}
	}
	return s, nil
}

// Serve listens on Config.Listen until ctx ends; fire starts the runs.
func (s *Server) Serve(ctx context.Context, fire Fire) error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("triggers: listen on %s: %w", s.cfg.Listen, err)
	}
	return s.ServeListener(ctx, ln, fire)
}

// ServeListener is Serve on a listener the caller opened (tests: port 0).
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, fire Fire) error {
	srv := &http.Server{
		Handler:           s.Handler(fire),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	s.cfg.Log.Info("triggers listening", "addr", ln.Addr().String(), "hooks", len(s.hooks))
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("triggers: %w", err)
}

// Handler is the hooks' HTTP handler.
func (s *Server) Handler(fire Fire) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/hooks/{name}", func(w http.ResponseWriter, r *http.Request) { s.serveHook(w, r, fire) })
	return mux
}

func (s *Server) serveHook(w http.ResponseWriter, r *http.Request, fire Fire) {
	h := s.hooks[r.PathValue("name")]
	if h == nil {
		http.Error(w, "no such trigger", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	log := s.cfg.Log.With("trigger", h.Name, "remote", r.RemoteAddr)
	if r.ContentLength > s.cfg.MaxBody {
		log.Warn("trigger refused: body too large", "bytes", r.ContentLength)
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		log.Warn("trigger refused: body too large", "limit", s.cfg.MaxBody)
		http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "could not read the body", http.StatusBadRequest)
		return
	}
	if !Valid(h.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		log.Warn("trigger refused: missing or wrong signature")
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if wait, ok := h.take(time.Now(), s.cfg.Burst, s.cfg.Refill); !ok {
		log.Warn("trigger refused: too many requests", "retry_after", wait)
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+1)))
		http.Error(w, "too many requests", http.StatusTooManyRequests)
		return
	}
	run := h.Hook
	run.Secret = nil // the bot has no use for it
	switch err := fire(r.Context(), run, body); {
	case errors.Is(err, ErrBusy):
		log.Warn("trigger refused: runs queued to the limit")
		http.Error(w, "too many runs queued", http.StatusServiceUnavailable)
	case err != nil:
		log.Error("trigger could not start a run", "err", err)
		http.Error(w, "could not start a run", http.StatusInternalServerError)
	default:
		log.Info("trigger accepted", "bytes", len(body))
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, "accepted\n")
	}
}

// Valid checks header, "sha256=<hex>", against HMAC-SHA256(secret, body) in
// constant time.
func Valid(secret, body []byte, header string) bool {
	hexSum, ok := strings.CutPrefix(header, "sha256=")
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSum)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}

// Sign is the header value Valid accepts: for tests and the docs' curl line.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// take spends one of the hook's tokens (a bucket of burst, one back per
// refill); when none is left it says how long until one is.
func (h *hook) take(now time.Time, burst int, refill time.Duration) (time.Duration, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.last.IsZero() {
		h.tokens = min(float64(burst), h.tokens+float64(now.Sub(h.last))/float64(refill))
	}
	h.last = now
	if h.tokens < 1 {
		return time.Duration((1 - h.tokens) * float64(refill)), false
	}
	h.tokens--
	return 0, true
}
