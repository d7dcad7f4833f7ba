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

// A send while the bot restarts waits for it: the socket that was missing
// listens soon after, and the file goes.
func TestSendWaitsForARestartingBot(t *testing.T) {
	f := serve(t, 0)
	secret := f.secret(t)
	f.write(t, f.work, "late.txt", "late")
	dir, sock := filepath.Dir(f.srv.Socket()), f.srv.Socket()
	if err := f.srv.Close(); err != nil {
		t.Fatal(err)
	}
	started := make(chan *Server, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		srv, err := Listen(Options{Dir: dir, Binary: "/usr/local/bin/untether", Gather: time.Millisecond,
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Error(err)
			started <- nil
			return
		}
		if _, err := srv.Restore(Session{Key: "42", Rule: scope.Rule{WorkDir: f.work}}, f.grant.Key()); err != nil {
			t.Error(err)
		}
		go func() { _ = srv.Serve(context.Background(), (&recorder{}).deliver) }()
		started <- srv
	}()
	r, err := send(context.Background(), sock, secret, "late.txt", "", 10*time.Second)
	if srv := <-started; srv != nil {
		defer srv.Close()
	}
	if err != nil || !r.OK {
		t.Fatalf("a send while the bot restarted: %+v, %v", r, err)
	}
}

// The wait for a bot that does not come back is bounded.
func TestSendGivesUpOnAGoneBot(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "bot.sock")
	begin := time.Now()
	_, err := send(context.Background(), sock, "s", "a.txt", "", 300*time.Millisecond)
	took := time.Since(begin)
	if err == nil || !strings.Contains(err.Error(), "reaching the untether bot") {
		t.Fatalf("err = %v", err)
	}
	if took < 300*time.Millisecond || took > 3*time.Second {
		t.Errorf("gave up after %v, want the 300ms wait", took)
	}
}
