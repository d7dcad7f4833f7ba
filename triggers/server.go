// Package triggers is the HTTP side of triggered runs: POST /hooks/NAME
// with a body signed as GitHub signs its webhooks (X-Hub-Signature-256:
// sha256=HMAC-SHA256(secret, body) in hex) hands the body to the bot. It
// checks everything a stranger could send before the bot sees a byte:
// the name, the size, the signature (in constant time), then a rate per
// trigger. What strangers cost is bounded too: a few bodies are read at
// once, each within a few seconds, and refusals are logged a line a minute.
// It knows no Telegram types: what a run is, and how a delivery is
// remembered, is the bot's.
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
	// DefaultMaxReading: 8 bodies of at most 64 KiB being read is half a
	// MiB, and far more than one sender's deliveries arrive at once.
	DefaultMaxReading = 8
	// DefaultReadTimeout: a webhook's request is small and sent at once;
	// a sender slower than this is holding a place, not delivering.
	DefaultReadTimeout = 5 * time.Second
)

// ReplayWindow is how long a delivery is remembered: the same one again
// within it runs nothing.
const ReplayWindow = 24 * time.Hour

// Hook is one [triggers.NAME] entry: where its runs go and its secret.
type Hook struct {
	Name   string
	ChatID int64
	Thread int    // a forum topic, 0 for none
	Prompt string // the owner's text; {{body}} marks where the body goes
	Secret []byte // from the environment variable secret_env names; never logged
}

// Delivery is one signed request to a trigger.
type Delivery struct {
	// ID is what makes it this delivery and no other: the trigger's name
	// and the SHA-256 of the body. Only the body is signed, so nothing
	// else a sender could change (X-GitHub-Delivery included) makes a
	// replay new.
	ID   string
	At   time.Time // when it arrived, on the server's clock
	Body []byte    // signed, within MaxBody
}

// Fire starts a run of h with d (already checked). It returns ErrBusy
// when the chat has as many triggered runs queued as it may, ErrDuplicate
// when d.ID was delivered within ReplayWindow; either way nothing runs.
// The bot remembers d.ID when, and only when, it queues the run.
type Fire func(ctx context.Context, h Hook, d Delivery) error

var (
	// ErrBusy is Fire's answer when runs of the trigger are queued to the limit.
	ErrBusy = errors.New("too many triggered runs queued")
	// ErrDuplicate is Fire's answer to a delivery it has seen before.
	ErrDuplicate = errors.New("delivery seen before")
)

// Config is the server's settings.
type Config struct {
	Listen  string // host:port; the server is off when it is empty
	Hooks   []Hook
	MaxBody int64         // bytes; larger bodies get 413 (default DefaultMaxBody)
	Burst   int           // signed requests a trigger may send back to back (default DefaultBurst)
	Refill  time.Duration // then one more per Refill (default DefaultRefill)
	// MaxReading bounds the requests whose body is read at once; the
	// next get 503 without a byte of theirs read (default DefaultMaxReading).
	MaxReading int
	// ReadTimeout: a request's headers and body must have arrived this
	// long after it began, or its connection is closed (default DefaultReadTimeout).
	ReadTimeout time.Duration
	Now         func() time.Time // the clock (default time.Now): rates, deliveries, the refusals' minute
	Log         *slog.Logger
}

// Server answers the hooks.
type Server struct {
	cfg     Config
	hooks   map[string]*hook
	reading chan struct{} // a place per request whose body is being read
	refused refusals
	ln      net.Listener // opened by Listen
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
	if cfg.MaxReading <= 0 {
		cfg.MaxReading = DefaultMaxReading
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = DefaultReadTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Server{cfg: cfg, hooks: map[string]*hook{}, reading: make(chan struct{}, cfg.MaxReading)}
	for i, h := range cfg.Hooks {
		if len(h.Secret) == 0 {
			return nil, fmt.Errorf("trigger %q: empty secret", h.Name)
		}
		if _, dup := s.hooks[h.Name]; dup {
			return nil, fmt.Errorf("trigger %q: named twice", h.Name)
		}
		// A body signed for one would be valid for the other.
		for _, o := range cfg.Hooks[:i] {
			if hmac.Equal(o.Secret, h.Secret) {
				return nil, fmt.Errorf("triggers %q and %q have the same secret: give each its own", o.Name, h.Name)
			}
		}
		s.hooks[h.Name] = &hook{Hook: h, tokens: float64(cfg.Burst)}
	}
	return s, nil
}

// Listen opens Config.Listen now, so that an address that is taken stops
// the bot at start instead of leaving its deliveries to whoever holds it.
func (s *Server) Listen() error {
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		if op := (*net.OpError)(nil); errors.As(err, &op) {
			err = op.Err // without the address it repeats
		}
		return fmt.Errorf("triggers: listen on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	return nil
}

// Close gives back the address Listen took, for a bot that stops before
// serving; once Serve ran it has nothing left to do.
func (s *Server) Close() {
	if s.ln != nil {
		_ = s.ln.Close()
	}
}

// Serve serves on Config.Listen (opened by Listen, or now) until ctx
// ends; fire starts the runs.
func (s *Server) Serve(ctx context.Context, fire Fire) error {
	if err := s.Listen(); err != nil {
		return err
	}
	return s.ServeListener(ctx, s.ln, fire)
}

// ServeListener is Serve on a listener the caller opened (tests: port 0).
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, fire Fire) error {
	srv := &http.Server{
		Handler:           s.Handler(fire),
		ReadHeaderTimeout: s.cfg.ReadTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.ReadTimeout + 30*time.Second, // counted from the headers: the body's time, then the run's queueing
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	s.cfg.Log.Info("triggers listening", "addr", ln.Addr().String(), "hooks", len(s.hooks),
		"max_reading", s.cfg.MaxReading, "read_timeout", s.cfg.ReadTimeout)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(summaryEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s.refused.flush(s.cfg.Now(), s.cfg.Log, false)
			case <-stopped: // Serve failed on its own
				return
			case <-ctx.Done():
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
				return
			}
		}
	}()
	err := srv.Serve(ln)
	close(stopped)
	<-done
	s.refused.flush(s.cfg.Now(), s.cfg.Log, true)
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
	now := s.cfg.Now()
	h := s.hooks[r.PathValue("name")]
	if h == nil {
		s.refuse(w, r, nil, http.StatusNotFound, "no such trigger")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.refuse(w, r, h, http.StatusMethodNotAllowed, "not a POST")
		return
	}
	if r.ContentLength > s.cfg.MaxBody {
		s.refuse(w, r, h, http.StatusRequestEntityTooLarge, "body too large", "bytes", r.ContentLength)
		return
	}
	select {
	case s.reading <- struct{}{}:
		defer func() { <-s.reading }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(int(s.cfg.ReadTimeout.Seconds()+1)))
		s.refuse(w, r, h, http.StatusServiceUnavailable, "too many requests being read")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	var netErr net.Error
	switch {
	case errors.As(err, &tooBig):
		s.refuse(w, r, h, http.StatusRequestEntityTooLarge, "body too large", "limit", s.cfg.MaxBody)
		return
	case errors.As(err, &netErr) && netErr.Timeout():
		s.refuse(w, r, h, http.StatusRequestTimeout, "body too slow", "read_timeout", s.cfg.ReadTimeout)
		return
	case err != nil:
		s.refuse(w, r, h, http.StatusBadRequest, "body unreadable")
		return
	}
	if !Valid(h.Secret, body, r.Header.Get("X-Hub-Signature-256")) {
		s.refuse(w, r, h, http.StatusUnauthorized, "missing or wrong signature")
		return
	}
	if wait, ok := h.take(now, s.cfg.Burst, s.cfg.Refill); !ok {
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+1)))
		s.refuse(w, r, h, http.StatusTooManyRequests, "too many requests", "retry_after", wait)
		return
	}
	log := s.cfg.Log.With("trigger", h.Name, "remote", r.RemoteAddr)
	if gh := r.Header.Get("X-GitHub-Delivery"); gh != "" {
		log = log.With("delivery", gh[:min(len(gh), 64)]) // to find it in GitHub's list; not what identifies it
	}
	run := h.Hook
	run.Secret = nil // the bot has no use for it
	switch err := fire(r.Context(), run, Delivery{ID: deliveryID(h.Name, body), At: now, Body: body}); {
	case errors.Is(err, ErrDuplicate):
		log.Info("trigger delivery seen before: nothing runs", "bytes", len(body))
		_, _ = io.WriteString(w, "duplicate\n")
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

// refuse answers a request that runs nothing, counts it for the log, and
// closes its connection at once. Without the read deadline the server
// would read on, until the read timeout, what is left of the body to
// find its end (net/http does so before it closes or reuses a
// connection): a refused stranger would keep its connection and buffers
// as long as it trickles.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, h *hook, status int, reason string, attrs ...any) {
	attrs = append(attrs, "remote", r.RemoteAddr)
	if h != nil {
		attrs = append(attrs, "trigger", h.Name)
	}
	s.refused.note(s.cfg.Now(), s.cfg.Log, reason, attrs...)
	w.Header().Set("Connection", "close")
	http.Error(w, reason, status)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now()) // the socket's clock, not Config.Now
}

// deliveryID is Delivery.ID: the trigger's name and its body's SHA-256.
func deliveryID(name string, body []byte) string {
	sum := sha256.Sum256(body)
	return name + " sha256:" + hex.EncodeToString(sum[:])
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
