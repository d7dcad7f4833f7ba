package filesend

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/untether/untether/scope"
)

// A bot restarted while a held Claude runs listens at the same socket;
// the process's `untether mcp` still has its old secret. Restore with the
// old grant's key lets that secret send again, to the same session; before
// it, and after the restored grant is closed, the secret is refused.
func TestRestoredGrantSendsAfterRestart(t *testing.T) {
	f := serve(t, 0)
	secret, key := f.secret(t), f.grant.Key()
	if strings.Contains(key, secret) || len(key) != 64 {
		t.Fatalf("grant key %q: want the secret's hex SHA-256", key)
	}
	p := f.write(t, f.work, "after.txt", "sent after the restart")
	// The bot stops; the next one listens in the same folder.
	dir := filepath.Dir(f.srv.Socket())
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(Options{Dir: dir, Binary: "/usr/local/bin/untether", Gather: time.Millisecond,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, rec.deliver) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	if srv.Socket() != f.srv.Socket() {
		t.Fatalf("the socket moved: %s, was %s", srv.Socket(), f.srv.Socket())
	}
	send := func() Result {
		t.Helper()
		r, err := Send(context.Background(), srv.Socket(), secret, "after.txt", "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := send(); r.OK {
		t.Fatalf("the old secret sent before its grant was restored: %+v", r)
	}
	if _, err := srv.Restore(Session{Key: "42"}, "not-a-key"); err == nil {
		t.Error("Restore took a malformed key")
	}
	g, err := srv.Restore(Session{Key: "42", Rule: scope.Rule{WorkDir: f.work}}, key)
	if err != nil {
		t.Fatal(err)
	}
	if r := send(); !r.OK || !strings.Contains(r.Text, "Delivered "+p) {
		t.Fatalf("after Restore: %+v", r)
	}
	if calls := rec.got(); len(calls) != 1 || rec.keys[0] != "42" || string(calls[0][0].Data) != "sent after the restart" {
		t.Errorf("deliveries %+v to %v", calls, rec.keys)
	}
	g.Close()
	if r := send(); r.OK {
		t.Errorf("the secret still sends after its restored grant was closed: %+v", r)
	}
}
