package main

import (
	"context"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/untether/untether/hold"
	"github.com/untether/untether/runner"
)

// holdMain is `untether hold`, the hidden command a bot starts to hold a
// Claude process through its restarts (package hold): its config comes on
// stdin, never in argv.
func holdMain() int {
	return hold.Command(os.Args[2:], os.Stdin, os.Stdout)
}

// holdDir is the folder of the holders' folders, next to the state file
// (0700, like it): their sockets and journals are the bot's alone.
func holdDir(cfg *Config) string {
	base := filepath.Base(cfg.State.Path)
	return filepath.Join(filepath.Dir(cfg.State.Path), strings.TrimSuffix(base, filepath.Ext(base))+".hold")
}

// holdOptions makes local interactive sessions durable unless [claude]
// durable is off. The holder is this very binary: the running one, so a
// bot and the holders it starts always speak the same protocol.
func holdOptions(cfg *Config, log *slog.Logger) *runner.Hold {
	if !cfg.Claude.Durable || cfg.Claude.Mode == ModeOneshot {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		if log != nil {
			log.Warn("sessions are not durable: the bot's own binary cannot be found", "err", err)
		}
		return nil
	}
	return &runner.Hold{Placement: hold.Placement{Self: self, Root: holdDir(cfg), Orphan: cfg.Claude.DurableWait}}
}

// remoteHold makes interactive sessions on a [hosts.NAME] machine durable
// unless [claude] durable is off: the holder runs there from the agent's
// binary (this bot's own build, placed there by host/ssh), in a holders'
// folder inside the agent's 0700 one, and is reached through a bridge
// over the connection, again when it drops (docs/durability.md).
func remoteHold(cfg *Config, h interface {
	AgentPath(context.Context) (string, error)
}) *runner.Hold {
	if !cfg.Claude.Durable || cfg.Claude.Mode == ModeOneshot {
		return nil
	}
	return &runner.Hold{Bridge: true, Placement: hold.Placement{Orphan: cfg.Claude.DurableWait, Place: func(ctx context.Context) (string, string, error) {
		agent, err := h.AgentPath(ctx)
		if err != nil {
			return "", "", err
		}
		return agent, path.Dir(agent) + "/hold", nil
	}}}
}
