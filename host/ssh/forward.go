package ssh

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"

	"github.com/untether/untether/host"
)

// AgentPath is where the bot's binary lies on the machine (placed there
// when missing): the send_file tool's MCP server runs it there as
// `untether mcp`.
func (h *Host) AgentPath(ctx context.Context) (string, error) { return h.agentPath(ctx) }

// forward is a socket made there, on the connection of one master.
type forward struct {
	remote string
	master string // the master's pid (ssh -O check)
}

// ForwardSocket makes a unix socket on the machine that leads to local, a
// socket of the bot's, over the multiplexed connection (`ssh -O forward
// -R`), and returns its path there: in the agent's 0700 folder, made
// 0600 by sshd (StreamLocalBindMask). A forward lives as long as the
// connection's master; asked again after the master changed, it is made
// again, under the same name.
func (h *Host) ForwardSocket(ctx context.Context, local string) (string, error) {
	agent, err := h.agentPath(ctx)
	if err != nil {
		return "", err
	}
	if err := h.Check(ctx); err != nil { // the connection the forward rides on
		return "", err
	}
	master, err := h.masterPid(ctx)
	if err != nil {
		return "", err
	}
	h.mu.Lock()
	f := h.forwards[local]
	h.mu.Unlock()
	if f.remote != "" && f.master == master {
		return f.remote, nil
	}
	// Named by the local socket, so a forward made again (a new master, a
	// new bot process) takes the same name instead of one more file piling
	// up a connection. sshd binds only where nothing is (its own
	// StreamLocalBindUnlink, not the client's, decides, and it is off by
	// default), so what is there goes first: the forward, on a master a
	// bot that stopped left running, and the socket file a dead one left.
	sum := sha256.Sum256([]byte(local))
	remote := path.Join(path.Dir(agent), "bot-"+hex.EncodeToString(sum[:6])+".sock")
	_, _ = h.control(ctx, "-O", "cancel", "-R", remote+":"+local) // none is fine
	if fi, err := h.Lstat(ctx, remote); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		if err := h.Remove(ctx, remote); err != nil {
			return "", fmt.Errorf("removing the old send_file socket: %w", err)
		}
	}
	if _, err := h.control(ctx, "-O", "forward", "-o", "StreamLocalBindUnlink=yes", "-R", remote+":"+local); err != nil {
		return "", fmt.Errorf("forwarding the send_file socket: %w", err)
	}
	h.mu.Lock()
	h.forwards[local] = forward{remote: remote, master: master}
	h.mu.Unlock()
	return remote, nil
}

// masterPid is the pid of the multiplexed connection's master, which
// `ssh -O check` says as "Master running (pid=N)".
func (h *Host) masterPid(ctx context.Context) (string, error) {
	out, err := h.control(ctx, "-O", "check")
	if err != nil {
		return "", err
	}
	m := masterRE.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s: ssh -O check said %q", h.o.Name, lastLine(string(out)))
	}
	return string(m[1]), nil
}

var masterRE = regexp.MustCompile(`\(pid=(\d+)\)`)

// PrivateDirs is the folder the bot keeps on the machine (host.Keeper):
// the agent's, ~/.cache/untether there, which holds the agent, the MCP
// configs with their secrets (PutPrivate), the forwarded sockets, and
// what cmd/untether puts there (the holders' folders with every chat's
// journal, the uploads).
func (h *Host) PrivateDirs(ctx context.Context) ([]string, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, callTimeout)
		defer cancel()
	}
	agent, err := h.agentPath(ctx)
	if err != nil {
		return nil, err
	}
	return []string{path.Dir(agent)}, nil
}

var _ host.Keeper = (*Host)(nil)

// PutPrivate writes data to a new file (0600) in the agent's folder on the
// machine and returns its path.
func (h *Host) PutPrivate(ctx context.Context, pattern string, data []byte) (string, error) {
	agent, err := h.agentPath(ctx)
	if err != nil {
		return "", err
	}
	w, err := h.CreateTemp(ctx, path.Dir(agent), pattern)
	if err != nil {
		return "", err
	}
	if _, err := w.Write(data); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		_ = h.Remove(ctx, w.Name())
		return "", err
	}
	return w.Name(), nil
}
