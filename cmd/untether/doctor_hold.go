package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/untether/untether/hold"
)

// checkHeld lists the Claude processes held through restarts (durable
// sessions, docs/durability.md): each holder's folder, and whether its
// socket answers. A running bot is attached to every one that answers
// (it attaches at start, and one it cannot attach to it forgets).
func (d *doctor) checkHeld() check {
	const name = "held sessions"
	root := holdDir(d.cfg)
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !d.cfg.Claude.Durable {
			return pass(name, "off ([claude] durable = false)")
		}
		return pass(name, "none running")
	case err != nil:
		return fail(name, err.Error(), "the folder should belong to the user running untether")
	case info.Mode().Perm() != 0o700:
		return fail(name, fmt.Sprintf("%s has mode %v, want 0700", root, info.Mode().Perm()),
			"chmod 700 "+root+" (it holds the sockets and journals of Claude sessions)")
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return fail(name, err.Error(), "the folder should belong to the user running untether")
	}
	var more []string
	alive := 0
	for _, e := range ents {
		dir := filepath.Join(root, e.Name())
		c, err := net.DialTimeout("unix", filepath.Join(dir, hold.SockName), time.Second)
		if err != nil {
			more = append(more, e.Name()+": gone (its files stay until the bot starts, or remove "+dir+")")
			continue
		}
		_ = c.Close() // no hello: the holder drops the connection, its bot stays attached
		alive++
		more = append(more, e.Name()+": running")
	}
	if len(ents) == 0 {
		return pass(name, "none running")
	}
	c := pass(name, "%s held in %s, %d running (they survive a restart of the bot)", count(len(ents), "Claude process"), root, alive)
	c.more = more
	return c
}
