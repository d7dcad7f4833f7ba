package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"sync"

	"github.com/untether/untether/filesend"
	"github.com/untether/untether/host"
	sshhost "github.com/untether/untether/host/ssh"
)

// hostSocket is the bot's send_file socket as Claude's MCP servers on a
// host reach it: a link at a path that does not change,
// ~/.cache/untether/send-HASH.sock in the agent's 0700 folder there (HASH:
// of the bot's own socket, so two bots of one user there keep apart), to the
// socket host/ssh forwards over the connection. host/ssh names a forward by
// the bot's socket too (it once named each anew), so today the link leads
// to the same name; it stays as the one path a Claude's MCP config names,
// so a held Claude (which outlives a connection and a bot) reaches
// whichever bot is running once that bot has pointed the link at its own
// forward, whatever host/ssh's naming.
type hostSocket struct {
	h     *sshhost.Host
	local string // the bot's socket here

	mu  sync.Mutex
	fwd string // the forward's path there, as last made ("": none yet)
}

// ensure forwards the socket (host/ssh makes it again when its file is
// gone) and points the link at it; it returns the link's path there.
func (s *hostSocket) ensure(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	agent, err := s.h.AgentPath(ctx)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(s.local))
	link := path.Dir(agent) + "/send-" + hex.EncodeToString(sum[:6]) + ".sock"
	fwd, err := s.h.ForwardSocket(ctx, s.local)
	if err != nil {
		return "", err
	}
	if fwd == s.fwd {
		return link, nil
	}
	// A link made under a temporary name and moved over the old one: an
	// MCP server never finds none.
	var out bytes.Buffer
	p, err := s.h.Start(ctx, host.Cmd{Path: "/bin/sh", Args: []string{"-c", `ln -sfn "$1" "$2.$$" && mv -f "$2.$$" "$2"`, "sh", fwd, link},
		Stdout: &out, Stderr: &out})
	if err != nil {
		return "", fmt.Errorf("linking the send_file socket there: %w", err)
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 0 {
		return "", fmt.Errorf("linking the send_file socket there: %v %v: %s", ex, err, out.String())
	}
	s.fwd = fwd
	return link, nil
}

// renew forwards the socket again after the connection dropped (host/ssh
// makes a forward again when the connection's master changed) and points
// the link at it.
func (s *hostSocket) renew(ctx context.Context) (string, error) { return s.ensure(ctx) }

// grant gives a Claude about to start there the send_file tool: its MCP
// config (with the session's secret) put there 0600, naming the link and
// `untether mcp` of the agent's binary there. nil without a send_file
// server.
func (s *hostSocket) grant(files *filesend.Server) func(filesend.Session) (*filesend.Grant, error) {
	if files == nil {
		return nil
	}
	return func(sess filesend.Session) (*filesend.Grant, error) {
		ctx, cancel := context.WithTimeout(context.Background(), probeWait)
		defer cancel()
		link, err := s.ensure(ctx)
		if err != nil {
			return nil, err
		}
		bin, err := s.h.AgentPath(ctx)
		if err != nil {
			return nil, err
		}
		return files.OpenElsewhere(sess, filesend.Elsewhere{Binary: bin, Socket: link,
			Put: func(data []byte) (string, error) { return s.h.PutPrivate(ctx, "mcp-*.json", data) },
			Remove: func(path string) error {
				rctx, cancel := context.WithTimeout(context.Background(), probeWait)
				defer cancel()
				return s.h.Remove(rctx, path)
			}})
	}
}

// regrant gives a held Claude there its grant back after a restart (its
// MCP server names the link, which now leads to this bot).
func (s *hostSocket) regrant(files *filesend.Server) func(filesend.Session, string) (*filesend.Grant, error) {
	if files == nil {
		return nil
	}
	return func(sess filesend.Session, key string) (*filesend.Grant, error) {
		ctx, cancel := context.WithTimeout(context.Background(), probeWait)
		defer cancel()
		if _, err := s.ensure(ctx); err != nil {
			return nil, err
		}
		return files.Restore(sess, key)
	}
}
