package codextest

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/untether/untether/host/ssh/sshtest"
)

// Host is Codex set up on the SSH test server (sshtest) for the fake API.
type Host struct {
	// Binary is Codex's native binary, copied where the server's user runs
	// it (the launcher's optional dependency holds it: docs/protocol-codex.md).
	Binary string
	// Home is a CODEX_HOME of that user's with Config(a.BaseURL()).
	Home string
	// Work is a working folder of that user's.
	Work string
}

// OnHost sets Codex up on s for a, from the pinned CLI bin.
func (a *API) OnHost(t testing.TB, s *sshtest.Server, bin string) Host {
	t.Helper()
	native, _ := filepath.Glob(filepath.Join(filepath.Dir(bin), "..", "@openai", "codex-linux-x64", "vendor", "*", "bin", "codex"))
	if len(native) != 1 {
		t.Fatalf("codex's native binary not found beside %s", bin)
	}
	h := Host{Binary: sshtest.Program(t, native[0], "codex"), Work: s.Dir(t, "work"), Home: s.Dir(t, "codexhome")}
	cfg := filepath.Join(h.Home, "config.toml")
	if err := os.WriteFile(cfg, []byte(Config(a.BaseURL())), 0o600); err != nil {
		t.Fatal(err)
	}
	u, err := user.Lookup(sshtest.User)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(cfg, uid, gid); err != nil {
		t.Fatal(err)
	}
	return h
}
