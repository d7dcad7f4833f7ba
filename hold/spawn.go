package hold

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/untether/untether/host"
	"github.com/untether/untether/token"
)

// Handle names a holder: enough to attach to it again from another bot
// process. It is stored in the bot's state file (0600), secret included.
type Handle struct {
	Proto  int    `json:"proto"`
	Dir    string `json:"dir"`
	Secret string `json:"secret"`
	Pid    int    `json:"pid"` // the CLI's
	// Holder is the holder's own process id on its host.
	Holder int `json:"holder"`
}

// Sock is the holder's socket.
func (h Handle) Sock() string { return filepath.Join(h.Dir, SockName) }

// spawnWait bounds a holder's start (its Ready line).
const spawnWait = 30 * time.Second

// Spawn starts a holder through h running self (the untether binary) as
// `self hold`: it starts the CLI of cfg (Path, Args, Env, WorkDir) and
// serves in a new folder under root. The holder is not the bot's child in
// any way that matters: it leads its own process group, and ctx ending
// does not end it.
func Spawn(ctx context.Context, h host.Host, self, root string, cfg Config) (Handle, error) {
	if err := h.MkdirAll(ctx, root, 0o700); err != nil {
		return Handle{}, fmt.Errorf("make holders' folder: %w", err)
	}
	cfg.Proto = Proto
	cfg.Secret = token.New()
	cfg.Dir = filepath.Join(root, token.New()[:12])
	in, err := json.Marshal(cfg)
	if err != nil {
		return Handle{}, fmt.Errorf("encode holder config: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return Handle{}, fmt.Errorf("holder pipe: %w", err)
	}
	defer outR.Close()
	// Nothing of the bot's environment (its token) reaches the holder: the
	// CLI's own environment is in cfg. On another machine the holder has
	// that machine's login environment (host/ssh lays Env over it), and
	// the CLI's is laid over it there (Overlay).
	env := []string{"PATH=/usr/bin:/bin"}
	if cfg.Overlay {
		env = []string{}
	}
	proc, err := h.Start(context.WithoutCancel(ctx), host.Cmd{Path: self, Args: []string{"hold"},
		Env: env, Stdin: bytes.NewReader(in), Stdout: outW, Dir: "/"})
	_ = outW.Close()
	if err != nil {
		return Handle{}, fmt.Errorf("start holder: %w", err)
	}
	go func() { _, _ = proc.Wait() }() // reaped while the bot lives; init's after
	got := readReady(outR)
	t := time.NewTimer(spawnWait)
	defer t.Stop()
	select {
	case r := <-got:
		if r.Error != "" {
			return Handle{}, errors.New("holder: " + r.Error)
		}
		holder := proc.Pid()
		if r.Holder != 0 {
			holder = r.Holder // Detach: the process started has ended
		}
		return Handle{Proto: Proto, Dir: cfg.Dir, Secret: cfg.Secret, Pid: r.Pid, Holder: holder}, nil
	case <-t.C:
		_ = proc.Signal(9)
		return Handle{}, errors.New("the holder did not start in time")
	case <-ctx.Done():
		_ = proc.Signal(9)
		return Handle{}, fmt.Errorf("start holder: %w", ctx.Err())
	}
}

// readReady reads a holder's Ready line from out, on a goroutine of its
// own (the caller bounds the wait).
func readReady(out io.Reader) <-chan Ready {
	got := make(chan Ready, 1)
	go func() {
		var r Ready
		line, err := bufio.NewReader(out).ReadBytes('\n')
		if err == nil {
			err = json.Unmarshal(line, &r)
		}
		if err != nil {
			r.Error = "no ready line: " + err.Error()
		}
		got <- r
	}()
	return got
}

// Forget removes the folder of a holder that died without removing it (it
// was killed, or the machine rebooted): the journal must not outlive the
// session. Only a folder whose socket refuses connections is removed.
func Forget(h Handle) error {
	c, err := net.DialTimeout("unix", h.Sock(), time.Second)
	if err == nil {
		_ = c.Close()
		return errors.New("the holder still answers")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("check the holder: %w", err)
	}
	if filepath.Base(filepath.Dir(h.Dir)) == "" {
		return errors.New("refusing to remove " + h.Dir)
	}
	return os.RemoveAll(h.Dir)
}
