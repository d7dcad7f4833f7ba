// Package web is the second frontend: a web view of the bot's
// conversations and a Telegram Mini App, on net/http and html/template.
// It is built on the conversation core only (chat.Core: Watch for what
// happens, PressElsewhere for approvals, Submit for a message), never on
// package telegram. It owns no conversation: it watches Telegram's and acts
// on them. See docs/web.md.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// Config is the web view's.
type Config struct {
	// Listen is the address the server listens on ("127.0.0.1:8788").
	Listen string
	// PublicURL is the https address phones reach it at ("" : http:// +
	// Listen), the base of sign-in links and the Mini App.
	PublicURL string
	// BotToken checks Mini App launch data.
	BotToken string
	// Allowed is asked on every request: a user removed from the
	// allowlist is out at once.
	Allowed func(userID int64) bool
	// Groups are the groups allowed users may see here (allowed_chat_ids),
	// each only to its members.
	Groups []int64
	// Members says who is in a group, asked on every request (it may keep
	// an answer briefly); nil: no group is shown.
	Members Members
	// MayApprove says whether userID may answer prompts in chatID
	// (approver_user_ids in groups).
	MayApprove func(userID, chatID int64) bool
	// Key is the conversation key of a chat and topic (telegram.SessionKey).
	Key func(chatID int64, thread int) string
	// Title names a group for the home page; nil or "" shows its id.
	Title func(ctx context.Context, chatID int64) string
	// Engine names the agent on the pages ("Claude Code").
	Engine string
	// Store records a prompt typed here before the core runs it.
	Store *prefs.Store
	// Redactor removes the bot's secrets from everything shown.
	Redactor *redact.Redactor
	// History is the conversation so far (*transcript.Log) and its
	// download; nil: what the page observed, no download.
	History History
	// Location is the zone schedules are shown in; nil: the machine's.
	Location *time.Location
	Log      *slog.Logger
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
}

// Server is the web view.
type Server struct {
	cfg   Config
	auth  *auth
	limit *limiter
	hub   *hub
	md    *markdown
	core  *chat.Core
	ln    net.Listener
	srv   *http.Server
	base  string
}

// Limits of what a request may carry.
const (
	maxForm   = 64 << 10
	maxPrompt = 16 << 10
)

// New makes the server; Listen takes its address, Serve serves it.
func New(cfg Config) (*Server, error) {
	if cfg.Listen == "" || cfg.BotToken == "" || cfg.Allowed == nil || cfg.Key == nil || cfg.Store == nil {
		return nil, errors.New("web: listen, bot token, allowlist, key and store are needed")
	}
	if u, err := url.Parse(cfg.PublicURL); err == nil && cfg.PublicURL != "" {
		// The config accepts the scheme in any case; the cookie's Secure
		// and the Mini App look for "https://".
		cfg.PublicURL = u.String()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Location == nil {
		cfg.Location = time.Local
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Redactor == nil {
		cfg.Redactor = redact.New(cfg.BotToken)
	}
	if cfg.MayApprove == nil {
		cfg.MayApprove = func(int64, int64) bool { return true }
	}
	s := &Server{cfg: cfg, auth: newAuth(cfg.Now), limit: newLimiter(cfg.Now), hub: newHub(cfg.Now), md: newMarkdown()}
	s.srv = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10,
		IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn)}
	return s, nil
}

// Listen takes the address now, so a taken one stops the bot's start.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("web: listen on %s: %w", s.cfg.Listen, err)
	}
	s.ln = ln
	s.base = strings.TrimRight(s.cfg.PublicURL, "/")
	if s.base == "" {
		s.base = "http://" + ln.Addr().String()
	}
	return nil
}

// Addr is the address listened on (after Listen).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve serves the pages over core until ctx ends.
func (s *Server) Serve(ctx context.Context, core *chat.Core) error {
	if s.ln == nil {
		return errors.New("web: Serve before Listen")
	}
	s.core = core
	stop := core.Watch("", s.hub)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.srv.Shutdown(sctx)
	}()
	s.srv.BaseContext = func(net.Listener) context.Context { return ctx }
	s.cfg.Log.Info("web view serving", "listen", s.Addr(), "public_url", s.cfg.PublicURL)
	if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("web: serve: %w", err)
	}
	return nil
}

// LoginURL mints a one-time sign-in link for userID (weblink.Logins).
func (s *Server) LoginURL(userID int64, name string) (string, error) {
	t, err := s.auth.issue(userID, name)
	if err != nil {
		return "", err
	}
	return s.base + "/login?t=" + t, nil
}

// Logout ends userID's sessions (weblink.Logins).
func (s *Server) Logout(userID int64) int { return s.auth.logout(userID) }

// AppURL is the Mini App's address: only over https, as Telegram requires.
func (s *Server) AppURL() string {
	if strings.HasPrefix(s.base, "https://") {
		return s.base + "/app"
	}
	return ""
}

// LoginMinutes is how long a sign-in link is valid.
func (s *Server) LoginMinutes() int { return int(loginTTL / time.Minute) }

// csp allows nothing but this server's own scripts, styles and
// connections: no inline script, no third party, no framing.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", s.signedIn(s.home))
	m.HandleFunc("GET /login", s.loginPage)
	m.HandleFunc("POST /login", s.loginPost)
	m.HandleFunc("GET /app", s.appPage)
	m.HandleFunc("POST /app", s.appPost)
	m.HandleFunc("POST /logout", s.signedIn(s.logoutPost))
	m.HandleFunc("GET /chat/{key}", s.signedIn(s.chatPage))
	m.HandleFunc("GET /chat/{key}/events", s.signedIn(s.chatEvents))
	m.HandleFunc("POST /chat/{key}/press", s.signedIn(s.press))
	m.HandleFunc("POST /chat/{key}/prompt", s.signedIn(s.prompt))
	m.HandleFunc("GET /chat/{key}/export", s.signedIn(s.export))
	m.HandleFunc("GET /chat/{key}/changes", s.signedIn(s.changes))
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFS)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer") // sign-in links carry their token
		h.Set("Cache-Control", "no-store")
		if r.Method == http.MethodPost {
			// A browser says where a request comes from: no other site
			// may post here, with or without a token.
			if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
				http.Error(w, "cross-site request refused", http.StatusForbidden)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		}
		m.ServeHTTP(w, r)
	})
}
