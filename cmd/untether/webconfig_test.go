package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/untether/untether/prefs"
	"github.com/untether/untether/redact"
)

// The web view is off unless [web] listen is set: by default no server
// is made (so the bot gets no Logins and /web says it is off), and with
// listen it takes its address before the bot starts.
func TestWebOffByDefault(t *testing.T) {
	store, err := prefs.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	log := slog.New(slog.DiscardHandler)
	cfg, _, err := load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Web.Listen != "" {
		t.Fatalf("[web] listen defaults to %q, want off", cfg.Web.Listen)
	}
	if s, err := webServer(cfg, store, redact.New(), log); s != nil || err != nil {
		t.Errorf("without [web] listen: server %v, err %v; want none", s, err)
	}
	cfg, _, err = load(t, map[string]string{"web.listen": `"127.0.0.1:0"`})
	if err != nil {
		t.Fatal(err)
	}
	s, err := webServer(cfg, store, redact.New(), log)
	if err != nil || s == nil || s.Addr() == "" {
		t.Fatalf("with [web] listen: server %v, err %v", s, err)
	}
}
