package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Another user who made the bot's control folder first (a shared /tmp,
// no XDG_RUNTIME_DIR) does not keep the bot from starting: the folder is
// refused, and a new one of a random name is used.
func TestControlFolderTakenByAnother(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to make a folder of another user's")
	}
	tmp, err := os.MkdirTemp("", "sq")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	cfg := &Config{}
	cfg.State.Path = filepath.Join(tmp, "state.db")
	taken := filepath.Dir(sshControlDir(cfg, "box"))
	if err := os.Mkdir(taken, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(taken, 65534, 65534); err != nil { // nobody
		t.Fatal(err)
	}
	h, err := newSSHHost(cfg, "box", HostConfig{SSH: "me@box"}, "/bin/true", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("the bot cannot start: %v", err)
	}
	defer h.Close()
	ents, _ := os.ReadDir(tmp)
	var made []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "untether-") && e.Name() != filepath.Base(taken) {
			made = append(made, e.Name())
			fi, _ := os.Stat(filepath.Join(tmp, e.Name()))
			if fi.Mode().Perm() != 0o700 {
				t.Errorf("%s is %v, want 0700", e.Name(), fi.Mode())
			}
		}
	}
	if len(made) != 1 {
		t.Errorf("folders made: %v, want one new one", made)
	}
}
