package filesend

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/untether/untether/scope"
)

// recorder is a Deliver that keeps what it was given and answers with
// fail (nil: delivered).
type recorder struct {
	mu    sync.Mutex
	calls [][]File
	keys  []string
	fail  error
}

func (r *recorder) deliver(_ context.Context, key string, files []File) []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, files)
	r.keys = append(r.keys, key)
	errs := make([]error, len(files))
	for i := range errs {
		errs[i] = r.fail
	}
	return errs
}

func (r *recorder) got() [][]File {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

type fixture struct {
	srv   *Server
	rec   *recorder
	work  string // the session's working directory
	other string // a folder outside it
	grant *Grant
}

// serve starts a server in a fresh folder with one session working in
// work; private is a file the rule forbids.
func serve(t *testing.T, maxSize int64) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{rec: &recorder{}, work: filepath.Join(dir, "work"), other: filepath.Join(dir, "other")}
	for _, d := range []string{f.work, f.other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := Listen(Options{Dir: filepath.Join(dir, "mcp"), Binary: "/usr/local/bin/untether", MaxSize: maxSize,
		Gather: time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, f.rec.deliver) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	f.grant, err = srv.Open(Session{Key: "42", Rule: scope.Rule{WorkDir: f.work,
		Forbidden: []string{filepath.Join(f.work, "untether.toml")}}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) write(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// secret reads the secret back from the config, as `untether mcp` gets it.
func (f *fixture) secret(t *testing.T) string {
	t.Helper()
	return readConfig(t, f.grant.ConfigPath()).env[SecretEnv]
}

type config struct {
	typ, command string
	args         []string
	env          map[string]string
}

func readConfig(t *testing.T, path string) config {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		MCPServers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	s, ok := raw.MCPServers[ServerName]
	if !ok || len(raw.MCPServers) != 1 {
		t.Fatalf("config names %v, want only %q", raw.MCPServers, ServerName)
	}
	return config{typ: s.Type, command: s.Command, args: s.Args, env: s.Env}
}

func TestSendDelivers(t *testing.T) {
	f := serve(t, 0)
	p := f.write(t, f.work, "report.txt", "the report")
	r, err := Send(context.Background(), f.srv.Socket(), f.secret(t), "report.txt", "Here it is")
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || !strings.Contains(r.Text, "Delivered "+p) {
		t.Errorf("result = %+v", r)
	}
	calls := f.rec.got()
	if len(calls) != 1 || len(calls[0]) != 1 {
		t.Fatalf("deliveries = %+v", calls)
	}
	got := calls[0][0]
	if got.Path != p || got.Name != "report.txt" || string(got.Data) != "the report" || got.Caption != "Here it is" || f.rec.keys[0] != "42" {
		t.Errorf("delivered %+v to %q", got, f.rec.keys[0])
	}
}

// Every refusal names its reason, and nothing reaches Deliver.
func TestSendRefuses(t *testing.T) {
	f := serve(t, 10)
	outside := f.write(t, f.other, "secret.txt", "x")
	link := filepath.Join(f.work, "link.txt")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	f.write(t, f.work, "untether.toml", "bot_token = 1")
	f.write(t, f.work, "big.bin", "more than ten bytes")
	f.write(t, f.work, "empty.txt", "")
	if err := os.Mkdir(filepath.Join(f.work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{outside, outside + " is outside this session's project"},
		{"../other/secret.txt", outside + " is outside"},
		{link, outside + " is outside"},
		{"untether.toml", "is one of the bot's private files"},
		{"big.bin", "is 19 B; the most that can be sent is 10 B"},
		{"empty.txt", "is empty"},
		{"sub", "is a folder: send its files one by one"},
		{"missing.txt", "missing.txt does not exist"},
		{"", "no path was given"},
	} {
		r, err := Send(context.Background(), f.srv.Socket(), f.secret(t), c.path, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.OK || !strings.HasPrefix(r.Text, "Not sent: ") || !strings.Contains(r.Text, c.want) {
			t.Errorf("%q: result %+v, want a refusal with %q", c.path, r, c.want)
		}
	}
	if calls := f.rec.got(); len(calls) != 0 {
		t.Errorf("refused files were delivered: %+v", calls)
	}
}

// A wrong secret, or the secret of a closed session, sends nothing; a
// closed grant's config is gone.
func TestSendNeedsALiveSecret(t *testing.T) {
	f := serve(t, 0)
	f.write(t, f.work, "a.txt", "a")
	secret := f.secret(t)
	if r, err := Send(context.Background(), f.srv.Socket(), "guess", "a.txt", ""); err != nil || r.OK {
		t.Errorf("a wrong secret: %+v %v", r, err)
	}
	f.grant.Close()
	if _, err := os.Stat(f.grant.ConfigPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the config outlived its grant: %v", err)
	}
	r, err := Send(context.Background(), f.srv.Socket(), secret, "a.txt", "")
	if err != nil || r.OK || !strings.Contains(r.Text, "may no longer send files") {
		t.Errorf("a closed session's secret: %+v %v", r, err)
	}
	if calls := f.rec.got(); len(calls) != 0 {
		t.Errorf("delivered: %+v", calls)
	}
}

// The delivery's error is the tool's result.
func TestSendReportsDeliveryError(t *testing.T) {
	f := serve(t, 0)
	f.rec.fail = errors.New("Telegram refused it")
	f.write(t, f.work, "a.txt", "a")
	r, err := Send(context.Background(), f.srv.Socket(), f.secret(t), "a.txt", "")
	if err != nil || r.OK || r.Text != "Not sent: Telegram refused it" {
		t.Errorf("result %+v %v", r, err)
	}
}

// The config runs `<binary> mcp --socket <socket>` with the secret in the
// server's env; it, the socket and the folder are the user's alone.
func TestConfigAndModes(t *testing.T) {
	f := serve(t, 0)
	c := readConfig(t, f.grant.ConfigPath())
	if c.typ != "stdio" || c.command != "/usr/local/bin/untether" || !slices.Equal(c.args, []string{"mcp", SocketFlag, f.srv.Socket()}) {
		t.Errorf("config = %+v", c)
	}
	secret := c.env[SecretEnv]
	if len(secret) < 16 || len(c.env) != 1 || strings.Contains(f.grant.ConfigPath(), secret) {
		t.Errorf("secret %q in env %v, config %s", secret, c.env, f.grant.ConfigPath())
	}
	for path, want := range map[string]os.FileMode{filepath.Dir(f.srv.Socket()): 0o700, f.srv.Socket(): 0o600, f.grant.ConfigPath(): 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
	}
	other, err := f.srv.Open(Session{Key: "43"})
	if err != nil {
		t.Fatal(err)
	}
	if readConfig(t, other.ConfigPath()).env[SecretEnv] == secret {
		t.Error("two sessions share a secret")
	}
}

// A socket and configs left by a crash are removed; a folder too deep for
// a socket is refused with a hint.
func TestListenCleansAndChecksThePath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{socketName, "session-old.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := Listen(Options{Dir: dir, Binary: "/bin/untether"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if _, err := os.Stat(filepath.Join(dir, "session-old.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a leftover config stayed: %v", err)
	}
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if _, err := Listen(Options{Dir: deep, Binary: "/bin/untether"}); err == nil || !strings.Contains(err.Error(), "move the state file") {
		t.Errorf("deep folder: %v", err)
	}
}

// Files of one session that arrive within Gather of the first go to
// Deliver together; a later one, or another session's, separately.
func TestGatherBatchesFilesSentTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		s := &Server{opts: Options{Gather: time.Second, Timeout: time.Minute}, log: slog.New(slog.DiscardHandler),
			batches: map[string]*batch{}, deliver: rec.deliver}
		var wg sync.WaitGroup
		send := func(key, name string) {
			wg.Go(func() {
				if err := s.gather(context.Background(), key, File{Name: name}); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			})
		}
		send("42", "a.png")
		time.Sleep(500 * time.Millisecond)
		send("42", "b.png")
		send("43", "c.png")
		wg.Wait()
		send("42", "d.png")
		wg.Wait()
		var got []string
		for i, files := range rec.got() {
			var names []string
			for _, f := range files {
				names = append(names, f.Name)
			}
			got = append(got, rec.keys[i]+":"+strings.Join(names, ","))
		}
		slices.Sort(got)
		if want := []string{"42:a.png,b.png", "42:d.png", "43:c.png"}; !slices.Equal(got, want) {
			t.Errorf("deliveries %v, want %v", got, want)
		}
	})
}

// Read says why, as a *PathError with the resolved path: /get tells a
// folder apart from other refusals.
func TestReadKinds(t *testing.T) {
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	rule := scope.Rule{WorkDir: work}
	for path, want := range map[string]Refusal{"sub": Folder, "/etc/hostname": Outside, "nope": Missing, "": NoPath} {
		_, err := Read(context.Background(), rule, path, 0)
		var pe *PathError
		if !errors.As(err, &pe) || pe.Kind != want {
			t.Errorf("%q: %v, want kind %d", path, err, want)
		}
	}
	_, err := Read(context.Background(), rule, "sub", 0)
	if pe := err.(*PathError); pe.Path != filepath.Join(work, "sub") {
		t.Errorf("path %q", pe.Path)
	}
}

// The file Read sends is the file it checked: one swapped, between the
// check of its path and the open, for a FIFO (before: the open hung for
// ever and took a send slot) or for a link out of the project (before: the
// outside file was read) is refused.
func TestReadChecksTheOpenedFile(t *testing.T) {
	work, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(outside, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	rule := scope.Rule{WorkDir: work}
	for _, c := range []struct {
		name string
		swap func(p string) error
		want Refusal
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }, NotRegular},
		{"link out", func(p string) error { return os.Symlink(outside, p) }, Outside},
	} {
		p := filepath.Join(work, "report.txt")
		if err := os.WriteFile(p, []byte("report"), 0o644); err != nil {
			t.Fatal(err)
		}
		afterCheck = func(string) {
			if err := os.Remove(p); err != nil {
				t.Error(err)
			}
			if err := c.swap(p); err != nil {
				t.Error(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			f, err := Read(context.Background(), rule, "report.txt", 0)
			if err == nil && strings.Contains(string(f.Data), "PRIVATE") {
				err = errors.New("sent the outside file")
			}
			done <- err
		}()
		select {
		case err := <-done:
			var pe *PathError
			if !errors.As(err, &pe) || pe.Kind != c.want {
				t.Errorf("%s: err = %v, want refusal kind %d", c.name, err, c.want)
			}
		case <-time.After(20 * time.Second): // a hang, not a speed goal
			t.Fatalf("%s: Read blocked", c.name)
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		afterCheck = nil
		os.Remove(p)
	}
}
