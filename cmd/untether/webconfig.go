package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
	"github.com/untether/untether/telegram"
	"github.com/untether/untether/telegram/weblink"
	"github.com/untether/untether/transcript"
	"github.com/untether/untether/web"
)

// WebConfig is [web]: the web view and Mini App (docs/web.md).
type WebConfig struct {
	// Listen is the address served ("" : off).
	Listen string `toml:"listen"`
	// PublicURL is the https address phones reach the same server at
	// through a proxy or tunnel; "" : http:// + Listen.
	PublicURL string `toml:"public_url"`
}

func (c *Config) validateWeb(bad func(section, key, format string, args ...any)) {
	w := c.Web
	if w.Listen != "" {
		if _, _, err := net.SplitHostPort(w.Listen); err != nil {
			bad("web", "listen", "%q is not host:port, e.g. \"127.0.0.1:8788\"", w.Listen)
		}
	}
	if w.PublicURL != "" {
		u, err := url.Parse(w.PublicURL)
		switch {
		case w.Listen == "":
			bad("web", "public_url", "is set but listen is not: the web view is off")
		case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
			bad("web", "public_url", "%q is not an address such as \"https://bot.example.org\"", w.PublicURL)
		case u.Scheme == "http" && !loopbackHost(u.Hostname()):
			bad("web", "public_url", "%q is plain http beyond this machine: use https (a proxy or tunnel, docs/web.md)", w.PublicURL)
		}
	}
}

func loopbackHost(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// webServer is the web view, or nil when [web] listen is empty. Its
// address is taken here, before the bot starts.
func webServer(cfg *Config, store *prefs.Store, red *redact.Redactor, log *slog.Logger) (*web.Server, error) {
	w := cfg.Web
	if w.Listen == "" {
		return nil, nil
	}
	if host, _, err := net.SplitHostPort(w.Listen); err == nil && !loopbackHost(host) {
		log.Warn("[web] listens beyond loopback over plain HTTP: put a TLS proxy in front (docs/web.md)", "listen", w.Listen)
	}
	users, groups := cfg.Telegram.AllowedUserIDs, cfg.Telegram.AllowedChatIDs
	approvers := cfg.Telegram.ApproverUserIDs
	api := weblink.API{URL: cfg.Telegram.APIURL, Token: cfg.Telegram.BotToken.Reveal(), Client: http.DefaultClient}
	titles := &weblink.Titles{API: api, Log: log}
	s, err := web.New(web.Config{
		Listen: w.Listen, PublicURL: w.PublicURL, BotToken: cfg.Telegram.BotToken.Reveal(),
		Allowed: func(id int64) bool { return cfg.Telegram.AllowAnyUser || slices.Contains(users, id) },
		Groups:  groups, Members: &weblink.Members{API: api},
		MayApprove: func(id, chatID int64) bool {
			return chatID > 0 || len(approvers) == 0 || slices.Contains(approvers, id)
		},
		Key: telegram.SessionKey, Title: titles.Title, Engine: map[string]string{"claude": "Claude Code"}[engineName(cfg)],
		Store: store, Redactor: red, History: transcript.New(store, red),
		Location: cfg.Schedule.Location, Log: log.With("frontend", "web"),
	})
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		return nil, fmt.Errorf("%w: the bot does not start without its web view; stop the program that holds the address, "+
			"or change [web] listen in %s", err, cfg.Path)
	}
	return s, nil
}
